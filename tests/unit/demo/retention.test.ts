/**
 * Demo images are swept (docs/decisions/074-demo-images-swept.md). A simulated demo image is free (about 11.5 KB, a file of
 * its own), so at the default DEMO_RATE_LIMIT (10 a minute) one signed-in account could add about 14,400 files and
 * 166 MB a day to the media store, each of its accounts again; result files of paid tasks are bounded by what was
 * paid, these are not. Demo images live under `demo/<UTC day>/` and the retention sweep removes the days older than
 * DEMO_IMAGE_RETENTION_DAYS.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "#db/client";
import { generateDemoImage } from "~/domain/demo/demo.server";
import { createDemoModels } from "~/domain/demo/models.server";
import { DAY_MS, manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { LocalStorage } from "~/storage/local.server";
import { createSweeper } from "../../../jobs/maintenance";

const dir = mkdtempSync(join(tmpdir(), "atelier-demo-retention-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a demo image is still there a day later and gone once it is older than the retention", async () => {
  const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: "silent" }); // no OPENAI_API_KEY: the simulated image model
  const base = "http://localhost:3000/media";
  const storage = new LocalStorage(join(dir, "media"), base);
  const made = Date.now();
  const r = await generateDemoImage(
    { models: createDemoModels(config), storage },
    { provider: "openai", model: "dall-e-3", prompt: "a lighthouse" },
  );
  expect(r.mode).toBe("simulated");
  const file = join(dir, "media", r.result_urls[0]!.slice(base.length + 1));
  expect(existsSync(file)).toBe(true);

  const db = openDatabase(":memory:");
  const sweepAt = async (at: number) => {
    const sweeper = createSweeper({ db, clock: manualClock(at), config, storage });
    try {
      await sweeper.sweep();
    } finally {
      sweeper.stop();
    }
  };
  try {
    await sweepAt(made);
    await sweepAt(made + DAY_MS);
    expect(existsSync(file)).toBe(true); // kept at least a whole day
    await sweepAt(made + 3 * DAY_MS);
    expect(existsSync(file)).toBe(false);
  } finally {
    await db.close();
  }
});
