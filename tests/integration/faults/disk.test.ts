/**
 * Result files cannot be written (DATA_DIR/media replaced by a plain file —
 * the same for a read-only, full or vanished volume): tasks fail with a clear
 * message and no charge, the service stays up, and once the folder is back
 * tasks complete again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { STORAGE_FAILURE } from "~/domain/generations/lifecycle.server";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";
import { expectHealthy, expectLedgerBalanced, finalState } from "./support";

let server: TestServer;
let c: Client;
let cookie: string;
const KINDS = [
  { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" }, // async
  { ai_type: "image", provider: "openai", model: "dall-e-3" }, // sync
  { ai_type: "video", provider: "kling", model: "kling-v1" }, // async video
] as const;

beforeAll(async () => {
  server = await startServer({ env: { SIMULATOR_DELAY_MS: "40", SIGNUP_CREDITS: "100" } });
  c = new Client(server.url);
  ({ cookie } = await c.signUp(uniqueEmail("disk")));
});
afterAll(() => server?.dispose());

const credits = async () =>
  (await c.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;
const generate = async (kind: (typeof KINDS)[number], prompt: string) => {
  const r = await c.post("/api/generator/generate", { ...kind, prompt }, { cookie });
  expect(r.body.code).toBe(0);
  return r.body.data.gen_id as string;
};

describe("result storage fails", () => {
  test("media folder unusable → every kind of task fails with the storage message, nothing charged; fixed → completes", async () => {
    const media = join(server.dataDir, "media");
    expect((await finalState(c, { cookie }, await generate(KINDS[0], "before"))).status).toBe("completed");
    const before = await credits();

    rmSync(media, { recursive: true, force: true });
    writeFileSync(media, "not a folder");
    const ids = await Promise.all(KINDS.map((k, i) => generate(k, `no disk ${i}`)));
    for (const id of ids) {
      const end = await finalState(c, { cookie }, id);
      expect(end).toMatchObject({ status: "failed", error_message: STORAGE_FAILURE });
    }
    expect(await credits()).toBe(before);
    await expectHealthy(server.url);
    expect(server.logs()).toContain('"msg":"storing a result failed"');
    expect(server.logs()).toContain("check DATA_DIR/media");

    rmSync(media, { force: true });
    const ok = await finalState(c, { cookie }, await generate(KINDS[1], "after"));
    expect(ok.status).toBe("completed");
    expect((await fetch(ok.result_urls![0]!)).status).toBe(200);
    expect(await credits()).toBe(before - 5);
    await expectLedgerBalanced(server.dataDir);
    expect(server.proc.exitCode).toBeNull();
  }, 30_000);
});
