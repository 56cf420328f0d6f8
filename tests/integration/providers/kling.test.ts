/** Kling adapter ↔ the Kling fake (which verifies the HS256 JWT), over real HTTP. */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { downloadAsset } from "~/providers/http.server";
import { createKlingProvider, klingToken } from "~/providers/kling.server";
import { SAMPLE_MP4, SAMPLE_PNG } from "../../fakes/common";
import { startKlingFake } from "../../fakes/kling";
import { config, deadBaseUrl, expectProviderError, FAST, pollToEnd, request, signal } from "./support";

const fake = startKlingFake();
afterAll(() => fake.stop());
beforeEach(() => {
  fake.state.reset();
  fake.outcome = "succeed";
});

const cfg = (ak = fake.accessKey, sk = fake.secretKey, base = fake.baseUrl) =>
  config({ KLING_ACCESS_KEY: ak, KLING_SECRET_KEY: sk, KLING_BASE_URL: base });
const provider = (ak?: string, sk?: string) => createKlingProvider(cfg(ak, sk), FAST);
const image = (options: Record<string, unknown> = {}) =>
  request("kling", "image", "kling-v1", "a koi pond, ink painting", options);
const video = (model = "kling-v1", options: Record<string, unknown> = {}) =>
  request("kling", "video", model, "waves on a black sand beach", options);

describe("Kling: the JWT", () => {
  test("HS256, typ JWT, iss = access key, exp = now + 30 min, nbf = now − 5 s", async () => {
    const now = Date.parse("2026-11-22T10:00:00.000Z");
    const token = await klingToken("ak_1", "sk_1", now);
    expect(decodeProtectedHeader(token)).toEqual({ alg: "HS256", typ: "JWT" });
    const claims = decodeJwt(token);
    expect(claims.iss).toBe("ak_1");
    expect(claims.exp).toBe(now / 1000 + 1800);
    expect(claims.nbf).toBe(now / 1000 - 5);
  });

  test("the fake rejects an expired token (1004) and a not-yet-valid one (1003), as Kling does", async () => {
    const old = await klingToken(fake.accessKey, fake.secretKey, Date.now() - 3_600_000);
    const early = await klingToken(fake.accessKey, fake.secretKey, Date.now() + 600_000);
    for (const [token, code] of [
      [old, 1004],
      [early, 1003],
    ] as const) {
      const res = await fetch(`${fake.baseUrl}/v1/images/generations/x`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: number }).code).toBe(code);
    }
  });
});

describe("Kling: success", () => {
  test("image: POST /v1/images/generations, submitted → processing → succeed, PNG downloads", async () => {
    const p = provider();
    const r = image({ aspect_ratio: "1:1", negative_prompt: "text" });
    const { upstreamTaskId } = await p.submit(r, signal());
    const create = fake.state.requests[0]!;
    expect(create.path).toBe("/v1/images/generations");
    expect(create.body).toEqual({
      model_name: "kling-v1",
      prompt: "a koi pond, ink painting",
      negative_prompt: "text",
      aspect_ratio: "1:1",
      n: 1,
      external_task_id: r.genId,
    });
    const claims = decodeJwt(create.headers.authorization!.replace("Bearer ", ""));
    expect(claims.iss).toBe(fake.accessKey);

    const states = await pollToEnd(p, upstreamTaskId, r);
    expect(states.map((s) => s.state)).toEqual(["pending", "running", "succeeded"]);
    expect(fake.state.requests.slice(1).every((q) => q.path === `/v1/images/generations/${upstreamTaskId}`)).toBe(true);
    const last = states.at(-1)!;
    if (last.state !== "succeeded") throw new Error("unreachable");
    const file = await downloadAsset(last.assets[0]!, signal(), { allowPrivate: true });
    expect(file.contentType).toBe("image/png");
    expect(Buffer.from(file.bytes).equals(Buffer.from(SAMPLE_PNG))).toBe(true);
  });

  for (const model of ["kling-v1", "kling-v1-6"]) {
    test(`video ${model}: POST /v1/videos/text2video (duration as a string), polled to succeed, MP4 downloads`, async () => {
      const p = provider();
      const r = video(model, {
        duration: 10,
        mode: "pro",
        aspect_ratio: "9:16",
        negative_prompt: "blur",
        cfg_scale: 0.7,
      });
      const { upstreamTaskId } = await p.submit(r, signal());
      const create = fake.state.requests[0]!;
      expect(create.path).toBe("/v1/videos/text2video");
      // The catalog's options arrive; `mode` is not one of them (pro costs more upstream than the catalog price).
      expect(create.body).toEqual({
        model_name: model,
        prompt: "waves on a black sand beach",
        negative_prompt: "blur",
        aspect_ratio: "9:16",
        duration: "10",
        cfg_scale: 0.7,
        external_task_id: r.genId,
      });
      const states = await pollToEnd(p, upstreamTaskId, r);
      expect(states.map((s) => s.state)).toEqual(["pending", "running", "succeeded"]);
      expect(fake.state.requests.at(-1)!.path).toBe(`/v1/videos/text2video/${upstreamTaskId}`);
      const last = states.at(-1)!;
      if (last.state !== "succeeded") throw new Error("unreachable");
      const file = await downloadAsset(last.assets[0]!, signal(), { allowPrivate: true });
      expect(file.contentType).toBe("video/mp4");
      expect(Buffer.from(file.bytes).equals(Buffer.from(SAMPLE_MP4))).toBe(true);
    });
  }

  test("failed → failed with task_status_msg", async () => {
    fake.outcome = "failed";
    const p = provider();
    const r = video();
    const { upstreamTaskId } = await p.submit(r, signal());
    expect((await pollToEnd(p, upstreamTaskId, r)).at(-1)).toEqual({
      state: "failed",
      message: "Kling failed the task: Failure to pass the risk control system",
    });
  });

  test("the same gen_id cannot start a second upstream task (external_task_id is unique upstream)", async () => {
    const r = image();
    await provider().submit(r, signal());
    await expectProviderError(provider().submit(r, signal()), "bad_request", { message: /external_task_id/ });
    expect(fake.tasks.size).toBeGreaterThan(0);
  });
});

describe("Kling: errors (code ≠ 0)", () => {
  test("wrong secret key → auth (1002), hint names both env vars", async () => {
    await expectProviderError(provider(fake.accessKey, "sk_wrong_secret").submit(image(), signal()), "auth", {
      retryable: false,
      status: 401,
      message: "Kling rejected the request credentials",
      hint: /code 1002.*KLING_ACCESS_KEY \/ KLING_SECRET_KEY/,
    });
  });

  test("wrong access key (iss) → auth", async () => {
    await expectProviderError(provider("ak_someone_else").submit(image(), signal()), "auth", { hint: /1002/ });
  });

  test("1302 (too frequent) and 1303 (concurrency) on create are retried, then succeed", async () => {
    fake.state.fail("create", "rate_limit", 1);
    fake.state.fail("create", "concurrency", 1);
    await provider().submit(image(), signal());
    expect(fake.state.requests).toHaveLength(3);
  });

  test("a lasting 1303 → rate_limit after the bounded attempts", async () => {
    fake.state.fail("create", "concurrency", 10);
    await expectProviderError(provider().submit(video(), signal()), "rate_limit", { retryable: true, hint: /1303/ });
    expect(fake.state.requests).toHaveLength(3);
  });

  test("1102 (resource pack used up) is a 429 that no retry can fix → not retried, operator must act", async () => {
    fake.state.fail("create", "arrears", 1);
    await expectProviderError(provider().submit(image(), signal()), "auth", {
      retryable: false,
      hint: /1102.*operator must act/,
    });
    expect(fake.state.requests).toHaveLength(1);
  });

  test("1301 content policy → bad_request with Kling's reason", async () => {
    fake.state.fail("create", "content_policy", 1);
    await expectProviderError(provider().submit(image(), signal()), "bad_request", { message: /content policy/ });
  });

  test("invalid parameters (1201) → bad_request", async () => {
    await expectProviderError(
      provider().submit(request("kling", "image", "kling-v1", "x", {}, "kling-v9"), signal()),
      "bad_request",
      { message: /model_name/, hint: /1201/ },
    );
  });

  test("5000 on create → server, not retried; on poll → retryable", async () => {
    fake.state.fail("create", "server");
    await expectProviderError(provider().submit(image(), signal()), "server", { retryable: false });
    expect(fake.state.requests).toHaveLength(1);
    const p = provider();
    const r = image();
    const { upstreamTaskId } = await p.submit(r, signal());
    fake.state.fail("poll", "server");
    await expectProviderError(p.poll(upstreamTaskId, r, signal()), "server", { retryable: true });
  });

  test("malformed JSON → bad_response", async () => {
    fake.state.fail("create", "malformed");
    await expectProviderError(provider().submit(image(), signal()), "bad_response");
  });

  test("hung create → timeout, not retried", async () => {
    fake.state.fail("create", "hang");
    await expectProviderError(provider().submit(video(), signal()), "timeout", { retryable: true });
    expect(fake.state.requests).toHaveLength(1);
  });

  test("unknown task (1203) → bad_request", async () => {
    await expectProviderError(provider().poll("nope", image(), signal()), "bad_request", { hint: /1203/ });
  });

  test("connection refused → network", async () => {
    await expectProviderError(
      createKlingProvider(cfg(undefined, undefined, await deadBaseUrl()), FAST).submit(image(), signal()),
      "network",
    );
  });
});
