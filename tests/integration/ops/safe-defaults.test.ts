/**
 * What a public server does with no configuration, and who pays for demo calls
 * (docs/decisions/051-safe-defaults.md).
 *
 * - `bun run start` (build/atelier.js serve; the executable runs the same entry)
 *   with no NODE_ENV and no secret serves in production mode, generates its
 *   auth secret into DATA_DIR and keeps DATA_DIR and its files private.
 * - DEMO_RATE_LIMIT applies in every mode; a demo call to a live provider costs
 *   the catalog price (debited before the call, given back if it fails); simulated is free.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenAI, startFakeOpenAI } from "../../fakes/openai-text";
import { Client, uniqueEmail } from "../../support/client";
import { freePort, ROOT, startServer, type TestServer } from "../../support/server";

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

async function startBare(dataDir: string, port: number) {
  // Only what a person typing `bun run start` on a fresh machine has: no NODE_ENV, no secret, no PUBLIC_URL.
  const proc = Bun.spawn(["bun", join(ROOT, "build/atelier.js"), "serve"], {
    cwd: mkdtempSync(join(tmpdir(), "atelier-cwd-")),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) return proc;
    } catch {}
    if (proc.exitCode !== null || i > 600)
      throw new Error(`server did not start: ${await new Response(proc.stderr).text()}`);
    await Bun.sleep(25);
  }
}

describe("no configuration: production mode, generated secret, private files", () => {
  let root: string;
  let dataDir: string;
  let port: number;
  let proc: Awaited<ReturnType<typeof startBare>>;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "atelier-bare-"));
    dataDir = join(root, "data");
    port = await freePort();
    proc = await startBare(dataDir, port);
  });
  afterAll(async () => {
    proc?.kill();
    await proc?.exited;
    rmSync(root, { recursive: true, force: true });
  });

  test("it serves in production mode: anonymous demo calls need a sign-in", async () => {
    const r = await new Client(`http://127.0.0.1:${port}`).post("/api/demo/gen-text", {
      provider: "openrouter",
      model: "openai/gpt-4o-mini",
      prompt: "hi",
    });
    expect(r.body).toEqual({ code: 1, message: "no auth, please sign-in", data: null });
  });

  test("DATA_DIR is 0700; the database, its WAL and SHM and the generated secret are 0600", async () => {
    expect(mode(dataDir)).toBe("700");
    const secret = join(dataDir, ".auth-secret");
    expect(readFileSync(secret, "utf8").trim().length).toBeGreaterThanOrEqual(32);
    for (const f of [
      secret,
      join(dataDir, "atelier.db"),
      join(dataDir, "atelier.db-wal"),
      join(dataDir, "atelier.db-shm"),
    ]) {
      expect(existsSync(f)).toBe(true);
      expect([f, mode(f)]).toEqual([f, "600"]);
    }
  });

  test("the secret is kept across restarts (sessions survive)", async () => {
    const secret = readFileSync(join(dataDir, ".auth-secret"), "utf8");
    proc.kill();
    await proc.exited;
    proc = await startBare(dataDir, port);
    expect(readFileSync(join(dataDir, ".auth-secret"), "utf8")).toBe(secret);
  });
});

describe("DEMO_RATE_LIMIT in development too", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { NODE_ENV: "development", DEMO_RATE_LIMIT: "2", DEMO_SIMULATOR_WORD_MS: "1" } });
  });
  afterAll(() => server?.dispose());

  test("an anonymous client gets DEMO_RATE_LIMIT calls a minute, then 429", async () => {
    const api = new Client(server.url);
    const body = { provider: "openrouter", model: "openai/gpt-4o-mini", prompt: "again" };
    expect((await api.post("/api/demo/gen-text", body)).body.code).toBe(0);
    expect((await api.post("/api/demo/gen-text", body)).body.code).toBe(0);
    const over = await api.post("/api/demo/gen-text", body);
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBeTruthy();
  });
});

describe("demo calls to a live provider are paid at the catalog price; simulated ones are free", () => {
  let server: TestServer;
  let fake: FakeOpenAI;
  let api: Client;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ chunkDelayMs: 1 });
    server = await startServer({
      env: {
        NODE_ENV: "development",
        OPENAI_API_KEY: fake.apiKey,
        OPENAI_BASE_URL: fake.baseURL,
        SILICONFLOW_API_KEY: "sk-wrong-key",
        SILICONFLOW_BASE_URL: fake.baseURL,
        DEMO_RATE_LIMIT: "0",
        DEMO_SIMULATOR_WORD_MS: "1",
      },
    });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
    await fake?.stop();
  });

  const credits = async (cookie: string) =>
    (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits as number;
  const live = { provider: "openai", model: "gpt-4o-mini", prompt: "paid words" };

  test("anonymous live calls are refused before the provider is called", async () => {
    const before = fake.calls.length;
    for (const path of ["/api/demo/gen-text", "/api/demo/gen-stream-text"]) {
      expect((await api.post(path, live)).body).toEqual({ code: 1, message: "no auth, please sign-in", data: null });
    }
    expect(
      (await api.post("/api/demo/gen-image", { provider: "openai", model: "dall-e-3", prompt: "x" })).body.message,
    ).toBe("no auth, please sign-in");
    expect(fake.calls.length).toBe(before);
    // Simulated providers stay open and free in development.
    expect(
      (await api.post("/api/demo/gen-text", { provider: "openrouter", model: "openai/gpt-4o-mini", prompt: "free" }))
        .body.code,
    ).toBe(0);
  });

  test("text 1 credit, stream 1 credit, dall-e-3 image 5 credits (its catalog price); simulated 0; a failed upstream 0", async () => {
    const { cookie } = await api.signUp(uniqueEmail("demo-pay"));
    expect(await credits(cookie)).toBe(10);
    expect((await api.post("/api/demo/gen-text", live, { cookie })).body.data.mode).toBe("live");
    expect(await credits(cookie)).toBe(9);
    const stream = await fetch(`${server.url}/api/demo/gen-stream-text`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify(live),
    });
    expect(stream.headers.get("x-demo-mode")).toBe("live");
    await stream.text();
    expect(await credits(cookie)).toBe(8);
    const image = await api.post(
      "/api/demo/gen-image",
      { provider: "openai", model: "dall-e-3", prompt: "a paid image" },
      { cookie },
    );
    expect(image.body.data.mode).toBe("live");
    expect(await credits(cookie)).toBe(3);
    expect(
      (
        await api.post(
          "/api/demo/gen-text",
          { provider: "openrouter", model: "openai/gpt-4o-mini", prompt: "free" },
          { cookie },
        )
      ).body.data.mode,
    ).toBe("simulated");
    const failed = await api.post(
      "/api/demo/gen-text",
      { provider: "siliconflow", model: "Qwen/Qwen2.5-7B-Instruct", prompt: "x" },
      { cookie },
    );
    expect(failed.body.code).toBe(1);
    expect(await credits(cookie)).toBe(3);
  });

  test("concurrent live calls of one user never spend more than the balance: 6 images at 5 credits on 10 → 2 reach the provider", async () => {
    const { cookie } = await api.signUp(uniqueEmail("demo-race"));
    const before = fake.calls.length;
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post("/api/demo/gen-image", { provider: "openai", model: "dall-e-3", prompt: `race ${i}` }, { cookie }),
      ),
    );
    const ok = replies.filter((r) => r.body.code === 0);
    expect(ok.length).toBe(2);
    for (const r of replies.filter((r) => r.body.code !== 0))
      expect(r.body.message).toBe("insufficient credits: need 5, have 0");
    expect(fake.calls.length - before).toBe(2);
    expect(await credits(cookie)).toBe(0);
  });

  test("too few credits: refused before the provider is called", async () => {
    const { cookie } = await api.signUp(uniqueEmail("demo-poor"));
    for (let i = 0; i < 2; i++)
      await api.post("/api/demo/gen-image", { provider: "openai", model: "dall-e-3", prompt: `img ${i}` }, { cookie });
    expect(await credits(cookie)).toBe(0);
    const before = fake.calls.length;
    const r = await api.post("/api/demo/gen-text", live, { cookie });
    expect(r.body).toEqual({ code: 1, message: "insufficient credits: need 1, have 0", data: null });
    expect(fake.calls.length).toBe(before);
  });
});
