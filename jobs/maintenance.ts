/**
 * The retention sweep's schedule: once a minute after start, then hourly, in
 * every process that runs background work. Sweeps are idempotent deletes, so
 * several processes or nodes sweeping the same database is harmless.
 */
import type { Db } from "#db/client";
import { sweepDemoImages } from "~/domain/demo/demo.server";
import { sweepExpiredFiles } from "~/domain/files/files.server";
import { sweepRetention } from "~/domain/maintenance/retention.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { log } from "~/lib/log.server";
import type { FileStore } from "~/storage/files.server";
import type { ResultStorage } from "~/storage/types";

const FIRST_MS = 60_000;
const EVERY_MS = 3_600_000;

export interface Sweeper {
  stop(): void;
  /** One sweep now (tests). */
  sweep(): Promise<void>;
}

export function createSweeper(deps: {
  db: Db;
  clock: Clock;
  config: Pick<Config, "WEBHOOK_RETENTION_DAYS">;
  storage?: Pick<ResultStorage, "deletePrefix">;
  /** Input files: unused ones past FILE_RETENTION_DAYS are removed (app/domain/files/files.server.ts). */
  files?: FileStore;
}): Sweeper {
  const sweep = async () => {
    try {
      const swept = await sweepRetention(deps.db, deps.clock, {
        webhookRetentionDays: deps.config.WEBHOOK_RETENTION_DAYS,
      });
      if (Object.values(swept).some((n) => n > 0)) log.info("retention sweep", swept);
    } catch (error) {
      // A busy or briefly unreachable database: the next run catches up.
      log.warn("retention sweep failed", { error });
    }
    if (deps.files) {
      const removed = await sweepExpiredFiles(deps.db, deps.files, deps.clock.now()).catch((error) => {
        log.warn("input file sweep failed", { error });
        return 0;
      });
      if (removed > 0) log.info("retention sweep", { files: removed });
    }
    // Demo images past their retention (app/domain/demo/demo.server.ts); an unreachable store is retried next hour.
    if (deps.storage)
      await sweepDemoImages(deps.storage, deps.clock.now()).catch((error) =>
        log.warn("demo image sweep failed", { error }),
      );
  };
  let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(function next() {
    void sweep().finally(() => {
      if (timer) timer = setTimeout(next, EVERY_MS);
    });
  }, FIRST_MS);
  timer.unref?.();
  return {
    stop: () => {
      clearTimeout(timer);
      timer = undefined;
    },
    sweep,
  };
}
