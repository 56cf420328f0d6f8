/**
 * Wires the background work to the server's life: the job runner, the
 * webhook dispatcher and the retention sweep, started with `serve` (unless JOBS=off) or by `worker`,
 * stopped on SIGTERM/SIGINT before the database closes.
 */
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import { getServices } from "~/http/services.server";
import { onServe, onShutdown } from "~/server/http.server";
import { createAlertWatcher } from "./alerts";
import { createSweeper } from "./maintenance";
import { createRunner } from "./runner";
import { createWebhookDispatcher } from "./webhooks";

export interface BackgroundWork {
  owner: string;
  stop(): Promise<void>;
}

/** Starts the job runner and the webhook dispatcher of this process. */
export function startRunnerFromServices(): BackgroundWork {
  const { db, clock, config } = getServices();
  const { providers, storage, files } = getGenerationRuntime();
  const runner = createRunner({ db, clock, config, providers, storage, files });
  const dispatcher = createWebhookDispatcher({ db, clock, config });
  runner.start();
  dispatcher.start();
  const sweeper = createSweeper({ db, clock, config, storage, files });
  const alerts = createAlertWatcher({ db, clock, config });
  return {
    owner: runner.owner,
    stop: async () => {
      sweeper.stop();
      await Promise.all([runner.stop(), dispatcher.stop(), alerts.stop()]);
    },
  };
}

/** Registers the background work with the HTTP server's start and shutdown hooks. */
export function installJobRunner(): void {
  const { config } = getServices();
  if (!config.JOBS) return;
  let work: BackgroundWork | undefined;
  onServe(() => {
    work = startRunnerFromServices();
  });
  onShutdown(() => work?.stop());
}
