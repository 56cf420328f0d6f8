/**
 * A large result's blurred placeholder is computed on the placeholder worker, not on the server's thread
 * (docs/decisions/131-placeholders-on-a-worker-thread.md): the built server keeps the ThumbHash of a 4.2 MP
 * picture, and the thread that computed it (logged with the task) is not the main one (0). Event-loop delay with
 * and without the worker is measured by `bun run bench:placeholder`, not asserted here.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { thumbHashToApproximateAspectRatio, thumbHashToAverageRGBA } from "thumbhash";
import { type OpenAIFake, startOpenAIFake } from "../../fakes/openai";
import { uniqueEmail } from "../../support/client";
import { queryServerDb } from "../../support/db";
import { serverForFile } from "../../support/file-server";
import { png } from "../../support/images";
import { until } from "../../support/until";

setDefaultTimeout(60_000);

let openai: OpenAIFake;
const it = serverForFile(
  () => {
    openai = startOpenAIFake();
    return { env: { OPENAI_API_KEY: openai.apiKey, OPENAI_BASE_URL: openai.baseUrl, LOG_LEVEL: "debug" } };
  },
  () => openai?.stop(),
);

/** 2048 × 2048 (4.19 MP, just under the 4.2 MP placeholders read): the left half orange, the right half teal. */
function largePicture(): Uint8Array {
  const side = 2048;
  const row = 1 + side * 3;
  const left = [230, 120, 30];
  const right = [20, 160, 170];
  return png(side, side, {
    level: 1,
    fill: (i) => {
      const col = (i % row) - 1;
      return ((col / 3) | 0) < side / 2 ? left[col % 3]! : right[col % 3]!;
    },
  });
}

test("a 4 MP result's placeholder is computed on the worker thread and kept", async () => {
  openai.picture = largePicture();
  const { cookie } = await it.api.signUp(uniqueEmail("placeholder-large"));
  const g = await it.api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a harbour at noon" },
    { cookie },
  );
  expect(g.body.code).toBe(0);
  const id = g.body.data.gen_id as string;
  const done = await until("the task completed", async () => {
    const d = (await it.api.post("/api/generator/query", { gen_id: id }, { cookie })).body.data;
    return d.status === "completed" || d.status === "failed" ? d : undefined;
  });
  expect(done.status).toBe("completed");

  const placeholder = await until(
    "the placeholder kept",
    async () => {
      const [row] = await queryServerDb(it.server.dataDir, "SELECT placeholder FROM generations WHERE id = ?", id);
      return row?.placeholder ? String(row.placeholder) : undefined;
    },
    45_000,
  );
  const hash = Uint8Array.from(Buffer.from(placeholder, "base64"));
  expect(thumbHashToApproximateAspectRatio(hash)).toBeCloseTo(1, 1);
  expect(thumbHashToAverageRGBA(hash).r).toBeCloseTo((230 + 20) / 2 / 255, 1);

  const computed = it.server
    .logs()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { msg: string; gen_id?: string; thread_id?: number; ms?: number })
    .find((l) => l.msg === "placeholder computed" && l.gen_id === id);
  expect(computed?.thread_id).toBeGreaterThan(0); // the server's own thread is 0
});
