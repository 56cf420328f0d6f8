/** Runway adapter ↔ the Runway fake, over real HTTP. */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { downloadAsset } from "~/providers/http.server";
import { createRunwayProvider } from "~/providers/runway.server";
import { SAMPLE_MP4 } from "../../fakes/common";
import { startRunwayFake } from "../../fakes/runway";
import { config, deadBaseUrl, expectProviderError, FAST, pollToEnd, request, signal } from "./support";

const fake = startRunwayFake();
afterAll(() => fake.stop());
beforeEach(() => {
  fake.state.reset();
  fake.outcome = "SUCCEEDED";
});

const cfg = (key = fake.apiKey, base = fake.baseUrl) => config({ RUNWAY_API_KEY: key, RUNWAY_BASE_URL: base });
const provider = (key?: string) => createRunwayProvider(cfg(key), FAST);
const req = (options: Record<string, unknown> = {}, prompt = "a paper boat on a rainy street") =>
  request("runway", "video", "gen4.5", prompt, options);

describe("Runway: success", () => {
  test("POST /v1/text_to_video with the documented body and headers; PENDING → THROTTLED → RUNNING → SUCCEEDED; the MP4 downloads", async () => {
    const p = provider();
    const r = req();
    const { upstreamTaskId } = await p.submit(r, signal());
    const create = fake.state.requests[0]!;
    expect(create.path).toBe("/v1/text_to_video");
    expect(create.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(create.headers["x-runway-version"]).toBe("2024-11-06");
    expect(create.body).toEqual({
      model: "gen4.5",
      promptText: "a paper boat on a rainy street",
      ratio: "1280:720",
      duration: 5,
    });

    const states = await pollToEnd(p, upstreamTaskId, r);
    expect(states.map((s) => s.state)).toEqual(["pending", "pending", "running", "succeeded"]);
    expect(
      fake.state.requests
        .slice(1)
        .every((q) => q.path === `/v1/tasks/${upstreamTaskId}` && q.headers["x-runway-version"] === "2024-11-06"),
    ).toBe(true);
    const last = states.at(-1)!;
    if (last.state !== "succeeded") throw new Error("unreachable");
    const file = await downloadAsset(last.assets[0]!, signal(), { allowPrivate: true });
    expect(file.contentType).toBe("video/mp4");
    expect(Buffer.from(file.bytes).equals(Buffer.from(SAMPLE_MP4))).toBe(true);
  });

  test("ratio, duration and seed options pass through when valid; invalid ones fall back to defaults", async () => {
    await provider().submit(req({ ratio: "720:1280", duration: 8, seed: 42 }), signal());
    expect(fake.state.requests[0]!.body).toMatchObject({ ratio: "720:1280", duration: 8, seed: 42 });
    await provider().submit(req({ ratio: "4:3", duration: 30, seed: "x" }), signal());
    expect(fake.state.requests[1]!.body).toEqual({
      model: "gen4.5",
      promptText: "a paper boat on a rainy street",
      ratio: "1280:720",
      duration: 5,
    });
  });
});

describe("Runway: final statuses", () => {
  test("FAILED → failed with the failure and its code, in context", async () => {
    fake.outcome = "FAILED";
    const p = provider();
    const r = req();
    const { upstreamTaskId } = await p.submit(r, signal());
    expect((await pollToEnd(p, upstreamTaskId, r)).at(-1)).toEqual({
      state: "failed",
      message: "Runway could not generate the video: The prompt was flagged by content moderation. (SAFETY.INPUT.TEXT)",
    });
  });

  test("CANCELLED → failed", async () => {
    fake.outcome = "CANCELLED";
    const p = provider();
    const r = req();
    const { upstreamTaskId } = await p.submit(r, signal());
    expect((await pollToEnd(p, upstreamTaskId, r)).at(-1)).toEqual({
      state: "failed",
      message: "Runway cancelled the task",
    });
  });
});

describe("Runway: errors", () => {
  test("wrong key → auth with a hint naming RUNWAY_API_KEY", async () => {
    await expectProviderError(provider("key_wrong").submit(req(), signal()), "auth", {
      retryable: false,
      status: 401,
      message: "Runway rejected the request credentials",
      hint: /RUNWAY_API_KEY/,
    });
  });

  test("validation errors (prompt over 1000 characters) → bad_request carrying Runway's reason", async () => {
    await expectProviderError(provider().submit(req({}, "x".repeat(1001)), signal()), "bad_request", {
      status: 400,
      message: /promptText/,
    });
  });

  test("429 on create is retried, then succeeds; a lasting 429 gives up after the bounded attempts", async () => {
    fake.state.fail("create", "rate_limit", 1);
    await provider().submit(req(), signal());
    expect(fake.state.requests).toHaveLength(2);
    fake.state.reset();
    fake.state.fail("create", "rate_limit", 10);
    await expectProviderError(provider().submit(req(), signal()), "rate_limit", { retryable: true });
    expect(fake.state.requests).toHaveLength(3);
  });

  test("500 on create → server, not retried (no idempotency key upstream); on poll → retryable", async () => {
    fake.state.fail("create", "server");
    await expectProviderError(provider().submit(req(), signal()), "server", { retryable: false });
    expect(fake.state.requests).toHaveLength(1);
    const p = provider();
    const { upstreamTaskId } = await p.submit(req(), signal());
    fake.state.fail("poll", "server");
    await expectProviderError(p.poll(upstreamTaskId, req(), signal()), "server", { retryable: true });
  });

  test("malformed JSON → bad_response", async () => {
    fake.state.fail("create", "malformed");
    await expectProviderError(provider().submit(req(), signal()), "bad_response");
    const p = provider();
    const { upstreamTaskId } = await p.submit(req(), signal());
    fake.state.fail("poll", "malformed");
    await expectProviderError(p.poll(upstreamTaskId, req(), signal()), "bad_response");
  });

  test("hung poll → timeout (retryable)", async () => {
    const p = provider();
    const { upstreamTaskId } = await p.submit(req(), signal());
    fake.state.fail("poll", "hang");
    await expectProviderError(p.poll(upstreamTaskId, req(), signal()), "timeout", { retryable: true });
  });

  test("unknown task → bad_request 404", async () => {
    await expectProviderError(provider().poll("00000000-0000-0000-0000-000000000000", req(), signal()), "bad_request", {
      status: 404,
    });
  });

  test("connection refused → network", async () => {
    await expectProviderError(
      createRunwayProvider(cfg(fake.apiKey, await deadBaseUrl()), FAST).submit(req(), signal()),
      "network",
    );
  });
});
