/** Replicate adapter ↔ the Replicate fake, over real HTTP. */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { downloadAsset } from "~/providers/http.server";
import { createReplicateProvider } from "~/providers/replicate.server";
import { SAMPLE_PNG } from "../../fakes/common";
import { startReplicateFake } from "../../fakes/replicate";
import { config, deadBaseUrl, expectProviderError, FAST, pollToEnd, request, signal } from "./support";

const fake = startReplicateFake();
afterAll(() => fake.stop());
beforeEach(() => {
  fake.state.reset();
  fake.outcome = "succeeded";
});

const cfg = (token = fake.token, base = fake.baseUrl) =>
  config({ REPLICATE_API_TOKEN: token, REPLICATE_BASE_URL: base });
const provider = (token?: string) => createReplicateProvider(cfg(token), FAST);
const MODEL = "black-forest-labs/flux-schnell";
const req = (options: Record<string, unknown> = {}, upstream = MODEL) =>
  request("replicate", "image", MODEL, "a red fox in snow", options, upstream);

describe("Replicate: success", () => {
  test("creates a prediction for the official model, polls starting → processing → succeeded, result URL downloads as a PNG", async () => {
    const p = provider();
    const r = req({ aspect_ratio: "16:9", seed: 7, num_outputs: 4, evil: "x" });
    const { upstreamTaskId } = await p.submit(r, signal());
    expect(fake.predictions.has(upstreamTaskId)).toBe(true);

    const create = fake.state.requests[0]!;
    expect(create.method).toBe("POST");
    expect(create.path).toBe("/v1/models/black-forest-labs/flux-schnell/predictions");
    expect(create.headers.authorization).toBe(`Bearer ${fake.token}`);
    // Known inputs pass through; unknown or cost-changing keys do not.
    expect(create.body).toEqual({ input: { prompt: "a red fox in snow", aspect_ratio: "16:9", seed: 7 } });

    const states = await pollToEnd(p, upstreamTaskId, r);
    expect(states.map((s) => s.state)).toEqual(["pending", "running", "succeeded"]);
    const last = states.at(-1)!;
    if (last.state !== "succeeded") throw new Error("unreachable");
    expect(last.assets).toEqual([{ kind: "url", url: `${fake.origin}/files/${upstreamTaskId}-0.png` }]);
    expect(
      fake.state.requests.slice(1).every((q) => q.method === "GET" && q.path === `/v1/predictions/${upstreamTaskId}`),
    ).toBe(true);

    const file = await downloadAsset(last.assets[0]!, signal(), { allowPrivate: true });
    expect(file.contentType).toBe("image/png");
    expect(Buffer.from(file.bytes).equals(Buffer.from(SAMPLE_PNG))).toBe(true);
  });

  test("every option the catalog declares for flux-schnell arrives in `input` (the fake validates their values)", async () => {
    const options = {
      aspect_ratio: "9:21",
      seed: 123,
      output_format: "png",
      output_quality: 90,
      num_inference_steps: 2,
      megapixels: "0.25",
      go_fast: false,
    };
    const { upstreamTaskId } = await provider().submit(req(options), signal());
    expect(fake.state.requests[0]!.body).toEqual({ input: { prompt: "a red fox in snow", ...options } });
    expect(fake.predictions.get(upstreamTaskId)!.input).toEqual({ prompt: "a red fox in snow", ...options });
  });

  test("MODEL_MAP's upstream model id is the one called", async () => {
    await provider().submit(req({}, "black-forest-labs/flux-dev"), signal());
    expect(fake.state.requests[0]!.path).toBe("/v1/models/black-forest-labs/flux-dev/predictions");
  });

  test("an upstream id that is not owner/name is refused before any request", async () => {
    await expectProviderError(provider().submit(req({}, "owner/name:0123abc"), signal()), "bad_request", {
      retryable: false,
      hint: /MODEL_MAP/,
    });
    expect(fake.state.requests).toHaveLength(0);
  });
});

describe("Replicate: final statuses", () => {
  for (const [outcome, message] of [
    ["failed", "Replicate failed the prediction: CUDA out of memory"],
    ["canceled", "Replicate canceled the prediction"],
    ["aborted", "Replicate aborted the prediction"],
  ] as const) {
    test(`${outcome} → failed with "${message}"`, async () => {
      fake.outcome = outcome;
      const p = provider();
      const r = req();
      const { upstreamTaskId } = await p.submit(r, signal());
      const states = await pollToEnd(p, upstreamTaskId, r);
      expect(states.at(-1)).toEqual({ state: "failed", message });
    });
  }
});

describe("Replicate: errors", () => {
  test("wrong token → auth, not retryable, hint names REPLICATE_API_TOKEN (create and poll)", async () => {
    await expectProviderError(provider("r8_wrong").submit(req(), signal()), "auth", {
      retryable: false,
      status: 401,
      message: "Replicate rejected the request credentials",
      hint: /REPLICATE_API_TOKEN.*|You did not pass a valid authentication token/,
    });
    expect(fake.state.requests).toHaveLength(1);
    const { upstreamTaskId } = await provider().submit(req(), signal());
    await expectProviderError(provider("r8_wrong").poll(upstreamTaskId, req(), signal()), "auth", {
      hint: /REPLICATE_API_TOKEN/,
    });
  });

  test("429 on create is retried with backoff and then succeeds", async () => {
    fake.state.fail("create", "rate_limit", 2);
    const { upstreamTaskId } = await provider().submit(req(), signal());
    expect(upstreamTaskId).toBeTruthy();
    expect(fake.state.requests.filter((q) => q.method === "POST")).toHaveLength(3);
  });

  test("429 that persists → rate_limit after the bounded number of attempts", async () => {
    fake.state.fail("create", "rate_limit", 10);
    await expectProviderError(provider().submit(req(), signal()), "rate_limit", { retryable: true, status: 429 });
    expect(fake.state.requests).toHaveLength(FAST.retry.attempts);
  });

  test("500 on create → server error, not retried (the prediction may exist)", async () => {
    fake.state.fail("create", "server");
    await expectProviderError(provider().submit(req(), signal()), "server", {
      retryable: false,
      status: 500,
      hint: /not retried/,
    });
    expect(fake.state.requests).toHaveLength(1);
  });

  test("500 on poll → server error the runner may retry", async () => {
    const p = provider();
    const { upstreamTaskId } = await p.submit(req(), signal());
    fake.state.fail("poll", "server");
    await expectProviderError(p.poll(upstreamTaskId, req(), signal()), "server", { retryable: true });
    // The next poll works again.
    expect((await p.poll(upstreamTaskId, req(), signal())).state).toBe("pending");
  });

  test("429 on poll → rate_limit, retryable", async () => {
    const p = provider();
    const { upstreamTaskId } = await p.submit(req(), signal());
    fake.state.fail("poll", "rate_limit");
    await expectProviderError(p.poll(upstreamTaskId, req(), signal()), "rate_limit", { retryable: true });
  });

  test("malformed JSON → bad_response (create and poll)", async () => {
    const p = provider();
    fake.state.fail("create", "malformed");
    await expectProviderError(p.submit(req(), signal()), "bad_response", {
      message: "Replicate sent an unreadable response",
    });
    const { upstreamTaskId } = await p.submit(req(), signal());
    fake.state.fail("poll", "malformed");
    await expectProviderError(p.poll(upstreamTaskId, req(), signal()), "bad_response");
  });

  test("a hung request → timeout after the per-request limit; a create is not retried", async () => {
    fake.state.fail("create", "hang");
    const t0 = performance.now();
    await expectProviderError(provider().submit(req(), signal()), "timeout", {
      retryable: true,
      message: "Replicate did not answer in time",
    });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(FAST.timeoutMs - 50);
    expect(fake.state.requests).toHaveLength(1);
  });

  test("unknown prediction id → bad_request (404)", async () => {
    await expectProviderError(provider().poll("nope", req(), signal()), "bad_request", { status: 404 });
  });

  test("connection refused → network, marked as never sent", async () => {
    const p = createReplicateProvider(cfg(fake.token, await deadBaseUrl("/v1")), FAST);
    const e = await expectProviderError(p.submit(req(), signal()), "network", {
      retryable: true,
      message: "could not reach Replicate",
    });
    expect((e as any).notSent).toBe(true);
  });

  test("the caller's abort is passed through, not turned into a provider error", async () => {
    fake.state.fail("poll", "hang");
    const p = createReplicateProvider(cfg(), { ...FAST, timeoutMs: 10_000 });
    const { upstreamTaskId } = await p.submit(req(), signal());
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("shutting down")), 50);
    await expect(p.poll(upstreamTaskId, req(), ac.signal)).rejects.toThrow("shutting down");
  });
});
