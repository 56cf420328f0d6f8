/**
 * The alert watcher: evaluates the operator's alert conditions every ALERT_CHECK_MS in each process that runs
 * background work (app/domain/ops/alerts.server.ts decides who mails). A failed evaluation is retried next time.
 */
import type { Db } from "#db/client";
import { evaluateAlerts, policyFrom } from "~/domain/ops/alerts.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { log, repeatedWarning } from "~/lib/log.server";
import { createMailer } from "~/lib/mail.server";

export function createAlertWatcher(deps: { db: Db; clock: Clock; config: Config }) {
  const mailer = createMailer(deps.config);
  const policy = policyFrom(deps.config);
  const warning = repeatedWarning("alert check failed");
  let running: Promise<void> | undefined;
  const check = async () => {
    try {
      const sent = await evaluateAlerts({ ...deps, mailer }, policy);
      for (const a of sent) log.warn("alert", { key: a.key, message: a.message });
      warning.ok();
    } catch (error) {
      warning.fail(error);
    }
  };
  const timer = setInterval(() => {
    running ??= check().finally(() => {
      running = undefined;
    });
  }, deps.config.ALERT_CHECK_MS);
  timer.unref?.();
  return {
    check,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
