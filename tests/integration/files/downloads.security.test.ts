/**
 * SSRF and memory guards on result downloads, over real HTTP: Atelier runs with
 * Replicate "live" against its fake, and the fake answers output URLs chosen by
 * the test — an internal service on 127.0.0.1, a redirect to the cloud metadata
 * address, a 700 MiB stream, 200 files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ReplicateFake, startReplicateFake } from "../../fakes/replicate";
import { Client, uniqueEmail } from "../../support/client";
import { png } from "../../support/images";
import { startServer, type TestServer } from "../../support/server";

let fake: ReplicateFake;
/** A stand-in for an internal service that must never be reached. */
let internal: ReturnType<typeof Bun.serve>;
const internalHits: string[] = [];
const streamed = { bytes: 0 };

beforeAll(() => {
  fake = startReplicateFake();
  fake.steps = { starting: 0, processing: 0 };
  const chunk = new Uint8Array(1024 * 1024).fill(1);
  internal = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      internalHits.push(path);
      if (path === "/metadata")
        return Response.redirect("http://169.254.169.254/latest/meta-data/iam/security-credentials/", 302);
      if (path === "/huge") {
        // 700 MiB, produced only as fast as the client reads it.
        const total = 700 * 1024 * 1024;
        return new Response(
          new ReadableStream<Uint8Array>({
            pull(c) {
              if (streamed.bytes >= total) return c.close();
              streamed.bytes += chunk.byteLength;
              c.enqueue(chunk);
            },
          }),
          { headers: { "content-type": "image/png" } },
        );
      }
      // A real (tiny) picture: the result pipeline's byte check refuses anything that is not one.
      return new Response(png(4, 4), {
        headers: { "content-type": "image/png" },
      });
    },
  });
});
afterAll(async () => {
  await fake?.stop();
  internal?.stop(true);
});

const internalUrl = (path: string) => `http://127.0.0.1:${internal.port}${path}`;
const replicateEnv = () => ({
  REPLICATE_API_TOKEN: fake.token,
  REPLICATE_BASE_URL: fake.baseUrl,
  SIGNUP_CREDITS: "100",
});

async function generateAndWait(api: Client, cookie: string) {
  const r = await api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "a fox" },
    { cookie },
  );
  expect(r.body.code).toBe(0);
  const id = r.body.data.gen_id;
  for (let i = 0; i < 200; i++) {
    const q = await api.post("/api/generator/query", { gen_id: id }, { cookie });
    if (q.body.data.status === "completed" || q.body.data.status === "failed") return q.body.data;
    await Bun.sleep(100);
  }
  throw new Error("task did not finish");
}

describe("OUTBOUND_ALLOW_PRIVATE unset (production)", () => {
  let server: TestServer;
  let api: Client;
  let cookie: string;
  beforeAll(async () => {
    server = await startServer({ env: replicateEnv() });
    api = new Client(server.url);
    ({ cookie } = await api.signUp(uniqueEmail("ssrf")));
  });
  afterAll(() => server?.dispose());

  test("a result URL on 127.0.0.1 is refused: the internal service is never contacted, nothing is charged or served", async () => {
    internalHits.length = 0;
    fake.output = () => [internalUrl("/secret")];
    const before = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits;
    const d = await generateAndWait(api, cookie);
    expect(d.status).toBe("failed");
    expect(d.error_message).toBe("the result file could not be downloaded");
    expect(internalHits).toEqual([]);
    expect((await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits).toBe(before);
    expect(server.logs()).toContain("forbidden address");
  });
});

describe("OUTBOUND_ALLOW_PRIVATE=true (the fakes' setting) still refuses metadata and caps sizes and counts", () => {
  let server: TestServer;
  let api: Client;
  let cookie: string;
  beforeAll(async () => {
    server = await startServer({ env: { ...replicateEnv(), OUTBOUND_ALLOW_PRIVATE: "true" } });
    api = new Client(server.url);
    ({ cookie } = await api.signUp(uniqueEmail("ssrf2")));
  });
  afterAll(() => server?.dispose());

  test("a redirect to 169.254.169.254 is refused at that hop", async () => {
    internalHits.length = 0;
    fake.output = () => [internalUrl("/metadata")];
    const d = await generateAndWait(api, cookie);
    expect(d.status).toBe("failed");
    expect(d.error_message).toBe("the result file could not be downloaded");
    expect(internalHits).toEqual(["/metadata"]);
    expect(server.logs()).toContain("169.254.169.254 is a linkLocal address");
  });

  test("a 700 MiB answer is cut while streaming (image cap 64 MiB): the server stays up", async () => {
    streamed.bytes = 0;
    fake.output = () => [internalUrl("/huge")];
    const d = await generateAndWait(api, cookie);
    expect(d.status).toBe("failed");
    expect(d.error_message).toBe("the result file is too large");
    expect(streamed.bytes).toBeLessThan(200 * 1024 * 1024);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });

  test("200 output URLs become at most 8 stored files", async () => {
    internalHits.length = 0;
    fake.output = () => Array.from({ length: 200 }, (_, i) => internalUrl(`/file-${i}.png`));
    const d = await generateAndWait(api, cookie);
    expect(d.status).toBe("completed");
    expect(d.result_urls).toHaveLength(8);
    expect(internalHits).toHaveLength(8);
  });
});
