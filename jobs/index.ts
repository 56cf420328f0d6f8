/**
 * Wires the job runner to the server's life: started with `serve` (unless
 * JOBS=off), stopped on SIGTERM/SIGINT before the database closes.
 */
import { getGenerationRuntime } from "~/domain/generations/runtime.server";
import { getServices } from "~/lib/services.server";
import { onServe, onShutdown } from "~/server/http.server";
import { createRunner, type Runner } from "./runner";
import { createWebhookDispatcher, type Dispatcher } from "./webhooks";

export function startRunnerFromServices(): Runner {
  const { db, clock, config } = getServices();
  const { providers, storage } = getGenerationRuntime();
  const runner = createRunner({ db, clock, config, providers, storage });
  runner.start();
  return runner;
}

/** Registers the runner and the webhook dispatcher with the HTTP server's start and shutdown hooks. */
export function installJobRunner(): void {
  const { config } = getServices();
  if (!config.JOBS) return;
  let runner: Runner | undefined;
  let dispatcher: Dispatcher | undefined;
  onServe(() => {
    runner = startRunnerFromServices();
    const { db, clock } = getServices();
    dispatcher = createWebhookDispatcher({ db, clock, config });
    dispatcher.start();
  });
  onShutdown(async () => {
    await Promise.all([runner?.stop(), dispatcher?.stop()]);
  });
}
