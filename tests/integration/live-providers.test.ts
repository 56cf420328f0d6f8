/**
 * The whole service with all four providers "live", each pointed at its local
 * fake (tests/fakes): generate through the API, results downloaded, stored and
 * served by Atelier, history correct, credits debited only on success. A second
 * server stores results in an S3-compatible bucket (s3rver behind a SigV4 check).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATALOG } from "~/domain/catalog";
import { SAMPLE_MP4, SAMPLE_PNG } from "../fakes/common";
import { startKlingFake, type KlingFake } from "../fakes/kling";
import { startOpenAIFake, type OpenAIFake } from "../fakes/openai";
import { startReplicateFake, type ReplicateFake } from "../fakes/replicate";
import { startRunwayFake, type RunwayFake } from "../fakes/runway";
import { startS3Fake, type S3Fake } from "../fakes/s3";
import { Client, uniqueEmail } from "../support/client";
import { startServer, type TestServer } from "../support/server";

let openai: OpenAIFake;
let replicate: ReplicateFake;
let kling: KlingFake;
let runway: RunwayFake;
let s3: S3Fake;

function providerEnv(): Record<string, string> {
  return {
    OPENAI_API_KEY: openai.apiKey,
    OPENAI_BASE_URL: openai.baseUrl,
    REPLICATE_API_TOKEN: replicate.token,
    REPLICATE_BASE_URL: replicate.baseUrl,
    KLING_ACCESS_KEY: kling.accessKey,
    KLING_SECRET_KEY: kling.secretKey,
    KLING_BASE_URL: kling.baseUrl,
    RUNWAY_API_KEY: runway.apiKey,
    RUNWAY_BASE_URL: runway.baseUrl,
    SIGNUP_CREDITS: "200",
  };
}

async function waitForFinal(api: Client, cookie: string, genIds: string[], timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  const done = new Map<string, any>();
  while (done.size < genIds.length) {
    for (const id of genIds) {
      if (done.has(id)) continue;
      const r = await api.post("/api/generator/query", { gen_id: id }, { cookie });
      expect(r.body.code).toBe(0);
      if (r.body.data.status === "completed" || r.body.data.status === "failed") done.set(id, r.body.data);
    }
    if (Date.now() > deadline) throw new Error(`tasks still running: ${genIds.filter((id) => !done.has(id)).join(", ")}`);
    await Bun.sleep(250);
  }
  return done;
}

beforeAll(async () => {
  openai = startOpenAIFake();
  replicate = startReplicateFake();
  replicate.steps = { starting: 1, processing: 1 };
  kling = startKlingFake();
  kling.steps = { submitted: 1, processing: 1 };
  runway = startRunwayFake();
  runway.walk = ["PENDING", "RUNNING"];
  s3 = await startS3Fake();
});

afterAll(async () => {
  await Promise.all([openai?.stop(), replicate?.stop(), kling?.stop(), runway?.stop(), s3?.stop()]);
});

describe("all four providers live against their fakes, local storage", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer({ env: providerEnv() });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
  });

  test("health shows every provider live", async () => {
    const body = await (await fetch(server.url + "/api/health")).json();
    expect(body.data.providers).toEqual({ openai: "live", replicate: "live", kling: "live", runway: "live" });
  });

  test("every catalog model generates through its upstream; results are stored, served and charged once", async () => {
    const { cookie } = await api.signUp(uniqueEmail("live"));
    const before = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data;
    const created: { id: string; offering: (typeof CATALOG)[number] }[] = [];
    for (const offering of CATALOG) {
      const r = await api.post(
        "/api/generator/generate",
        { ai_type: offering.aiType, provider: offering.provider, model: offering.model, prompt: `a lighthouse at dusk (${offering.model})` },
        { cookie },
      );
      expect(r.body.code).toBe(0);
      expect(r.body.data.status).toBe("pending");
      created.push({ id: r.body.data.gen_id, offering });
    }
    const final = await waitForFinal(api, cookie, created.map((c) => c.id));

    for (const { id, offering } of created) {
      const d = final.get(id)!;
      expect(d.status).toBe("completed");
      expect(d.result_urls.length).toBeGreaterThan(0);
      for (const url of d.result_urls as string[]) {
        // Stored by Atelier (absolute, from PUBLIC_URL), not the upstream's expiring URL.
        expect(url.startsWith(server.url + "/media/")).toBe(true);
        const res = await fetch(url);
        expect(res.status).toBe(200);
        const bytes = new Uint8Array(await res.arrayBuffer());
        if (offering.aiType === "image") {
          expect(res.headers.get("content-type")).toStartWith("image/png");
          // OpenAI answers b64_json of its own PNG; the async providers' files are downloaded from the fake.
          if (offering.provider !== "openai") expect(bytes).toEqual(SAMPLE_PNG);
          else expect([...bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
        } else {
          expect(res.headers.get("content-type")).toStartWith("video/mp4");
          expect(bytes).toEqual(SAMPLE_MP4);
        }
      }
    }

    // Each upstream saw exactly one create per task of its provider (nothing paid twice).
    const creates = (reqs: { method: string; path: string }[], re: RegExp) => reqs.filter((r) => r.method === "POST" && re.test(r.path)).length;
    expect(creates(openai.state.requests, /\/images\/generations$/)).toBe(CATALOG.filter((o) => o.provider === "openai").length);
    expect(creates(replicate.state.requests, /\/predictions$/)).toBe(1);
    expect(creates(kling.state.requests, /\/v1\/(images\/generations|videos\/text2video)$/)).toBe(CATALOG.filter((o) => o.provider === "kling").length);
    expect(creates(runway.state.requests, /\/v1\/text_to_video$/)).toBe(1);

    const cost = CATALOG.reduce((a, o) => a + o.credits, 0);
    const after = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data;
    expect(after.left_credits).toBe(before.left_credits - cost);
    expect(after.total_credits).toBe(before.total_credits);

    const history = await api.post("/api/generator/history", { page_size: 100 }, { cookie });
    expect(history.body.data.total).toBe(CATALOG.length);
    for (const entry of history.body.data.generations) {
      const offering = created.find((c) => c.id === entry.gen_id)!.offering;
      expect(entry.status).toBe("completed");
      expect(entry.credits_cost).toBe(offering.credits);
      expect(JSON.parse(entry.result_urls)).toEqual(final.get(entry.gen_id).result_urls);
    }
  }, 60_000);

  test("an upstream task that fails ends failed with its message and costs nothing", async () => {
    const { cookie } = await api.signUp(uniqueEmail("live-fail"));
    const before = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits;
    replicate.outcome = "failed";
    try {
      const r = await api.post("/api/generator/generate", { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "a failing fox" }, { cookie });
      const final = await waitForFinal(api, cookie, [r.body.data.gen_id]);
      const d = final.get(r.body.data.gen_id)!;
      expect(d.status).toBe("failed");
      expect(typeof d.error_message).toBe("string");
      expect(d.error_message.length).toBeGreaterThan(0);
      expect(d.result_urls).toBeUndefined();
    } finally {
      replicate.outcome = "succeeded";
    }
    const after = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data.left_credits;
    expect(after).toBe(before);
    const h = await api.post("/api/generator/history", {}, { cookie });
    expect(h.body.data.generations[0].credits_cost).toBe(0);
  }, 60_000);
});

describe("results in an S3-compatible bucket", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer({ env: { ...providerEnv(), ...s3.env, S3_PUBLIC_URL: `${s3.endpoint}/${s3.bucket}` } });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
  });

  test("a live video lands in the bucket with signed writes and its public URL serves the file", async () => {
    const { cookie } = await api.signUp(uniqueEmail("s3"));
    const r = await api.post("/api/generator/generate", { ai_type: "video", provider: "runway", model: "gen4.5", prompt: "waves on a pier" }, { cookie });
    expect(r.body.code).toBe(0);
    const d = (await waitForFinal(api, cookie, [r.body.data.gen_id])).get(r.body.data.gen_id)!;
    expect(d.status).toBe("completed");
    const url = d.result_urls[0] as string;
    expect(url.startsWith(`${s3.endpoint}/${s3.bucket}/`)).toBe(true);
    const puts = s3.log.filter((e) => e.method === "PUT");
    expect(puts.length).toBeGreaterThan(0);
    expect(puts.every((e) => e.signed && e.verified)).toBe(true);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(SAMPLE_MP4);
  }, 60_000);
});
