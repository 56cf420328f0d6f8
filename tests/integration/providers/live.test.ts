/**
 * The whole service with all four providers "live", each pointed at its local
 * fake (tests/fakes): generate through the API, results downloaded, stored and
 * served by Atelier, history correct, credits debited only on success. A second
 * server stores results in an S3-compatible bucket (s3rver behind a SigV4 check).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AllFakes, startAllFakes } from "../../fakes";
import { SAMPLE_MP4, SAMPLE_PNG } from "../../fakes/common";
import { Client, uniqueEmail } from "../../support/client";
import { startServer, type TestServer } from "../../support/server";
import { PRICED } from "../../support/spec";

let fakes: AllFakes;
/** The fakes' env; S3 variables only when asked (otherwise results go to local disk). */
const providerEnv = (withS3 = false) => ({
  ...Object.fromEntries(Object.entries(fakes.env).filter(([k]) => withS3 || !k.startsWith("S3_"))),
  SIGNUP_CREDITS: "200",
});

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
    if (Date.now() > deadline)
      throw new Error(`tasks still running: ${genIds.filter((id) => !done.has(id)).join(", ")}`);
    await Bun.sleep(250);
  }
  return done;
}

beforeAll(async () => {
  fakes = await startAllFakes({ s3: true });
  fakes.replicate.steps = { starting: 1, processing: 1 };
  fakes.kling.steps = { submitted: 1, processing: 1 };
  fakes.runway.walk = ["PENDING", "RUNNING"];
});

afterAll(async () => {
  await fakes?.stop();
});

describe("all four providers live against their fakes, local storage", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    // Stored results are compared with the fakes' bytes: unsigned here (tests/integration/provenance signs them).
    server = await startServer({ env: { ...providerEnv(), C2PA: "false" } });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
  });

  test("health shows every provider live", async () => {
    const body = await (await fetch(`${server.url}/api/health`)).json();
    expect(body.data.providers).toEqual({
      openai: "live",
      replicate: "live",
      kling: "live",
      runway: "live",
      fal: "live",
      google: "live",
    });
  });

  // The models and prices of the spec (tests/support/spec.ts), not the catalog: a task must cost what the spec says.
  test("every catalog model generates through its upstream; results are stored, served and charged once", async () => {
    const { cookie } = await api.signUp(uniqueEmail("live"));
    const before = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data;
    const created: { id: string; offering: (typeof PRICED)[number] }[] = [];
    for (const offering of PRICED) {
      const r = await api.post(
        "/api/generator/generate",
        {
          ai_type: offering.aiType,
          provider: offering.provider,
          model: offering.model,
          prompt: `a lighthouse at dusk (${offering.model})`,
        },
        { cookie },
      );
      expect(r.body.code).toBe(0);
      expect(r.body.data.status).toBe("pending");
      created.push({ id: r.body.data.gen_id, offering });
    }
    const final = await waitForFinal(
      api,
      cookie,
      created.map((c) => c.id),
    );

    for (const { id, offering } of created) {
      const d = final.get(id)!;
      expect(d.status).toBe("completed");
      expect(d.result_urls.length).toBeGreaterThan(0);
      for (const url of d.result_urls as string[]) {
        // Stored by Atelier (absolute, from PUBLIC_URL), not the upstream's expiring URL.
        expect(url.startsWith(`${server.url}/media/`)).toBe(true);
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
    const creates = (reqs: { method: string; path: string }[], re: RegExp) =>
      reqs.filter((r) => r.method === "POST" && re.test(r.path)).length;
    expect(creates(fakes.openai.state.requests, /\/images\/generations$/)).toBe(
      PRICED.filter((o) => o.provider === "openai").length,
    );
    expect(creates(fakes.replicate.state.requests, /\/predictions$/)).toBe(1);
    expect(creates(fakes.kling.state.requests, /\/v1\/(images\/generations|videos\/text2video)$/)).toBe(
      PRICED.filter((o) => o.provider === "kling").length,
    );
    expect(creates(fakes.runway.state.requests, /\/v1\/text_to_video$/)).toBe(1);

    const cost = PRICED.reduce((a, o) => a + o.credits, 0);
    const after = (await api.post("/api/get-user-credits", undefined, { cookie })).body.data;
    expect(after.left_credits).toBe(before.left_credits - cost);
    expect(after.total_credits).toBe(before.total_credits);

    const history = await api.post("/api/generator/history", { page_size: 100 }, { cookie });
    expect(history.body.data.total).toBe(PRICED.length);
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
    fakes.replicate.outcome = "failed";
    try {
      const r = await api.post(
        "/api/generator/generate",
        { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "a failing fox" },
        { cookie },
      );
      const final = await waitForFinal(api, cookie, [r.body.data.gen_id]);
      const d = final.get(r.body.data.gen_id)!;
      expect(d.status).toBe("failed");
      expect(typeof d.error_message).toBe("string");
      expect(d.error_message.length).toBeGreaterThan(0);
      expect(d.result_urls).toBeUndefined();
    } finally {
      fakes.replicate.outcome = "succeeded";
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
    server = await startServer({
      env: { ...providerEnv(true), C2PA: "false", S3_PUBLIC_URL: `${fakes.s3!.endpoint}/${fakes.s3!.bucket}` },
    });
    api = new Client(server.url);
  });
  afterAll(async () => {
    await server?.dispose();
  });

  test("a live video lands in the bucket with signed writes and its public URL serves the file", async () => {
    const { cookie } = await api.signUp(uniqueEmail("s3"));
    const r = await api.post(
      "/api/generator/generate",
      { ai_type: "video", provider: "runway", model: "gen4.5", prompt: "waves on a pier" },
      { cookie },
    );
    expect(r.body.code).toBe(0);
    const d = (await waitForFinal(api, cookie, [r.body.data.gen_id])).get(r.body.data.gen_id)!;
    expect(d.status).toBe("completed");
    const s3 = fakes.s3!;
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
