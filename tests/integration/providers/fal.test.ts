/** fal adapter ↔ the fal queue fake, over real HTTP. */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createFalProvider } from "~/providers/fal.server";
import { downloadAsset } from "~/providers/http.server";
import { SAMPLE_MP4, SAMPLE_PNG } from "../../fakes/common";
import { startFalFake } from "../../fakes/fal";
import { config, expectProviderError, FAST, pollToEnd, request, signal, withInputs } from "./support";

const fake = startFalFake();
afterAll(() => fake.stop());
beforeEach(() => {
  fake.state.reset();
  fake.outcome = "succeeded";
  fake.steps = { queued: 1, running: 1 };
  fake.wrongPaths.length = 0;
  fake.canceled.length = 0;
});

const provider = (key = fake.key) => createFalProvider(config({ FAL_KEY: key, FAL_QUEUE_URL: fake.baseUrl }), FAST);
const T2V = "fal-ai/kling-video/v1.6/standard/text-to-video";
const I2V = "fal-ai/kling-video/v1.6/standard/image-to-video";

describe("fal: success", () => {
  test("flux/dev: submit to the endpoint, status and result under the app (fal-ai/flux), IN_QUEUE → IN_PROGRESS → COMPLETED; the PNG downloads", async () => {
    const p = provider();
    const r = request("fal", "image", "fal-ai/flux/dev", "a copper teapot", { image_size: "square_hd", seed: 7 });
    const { upstreamTaskId } = await p.submit(r, signal());
    const submit = fake.state.requests[0]!;
    expect(submit.method).toBe("POST");
    expect(submit.path).toBe("/fal-ai/flux/dev");
    expect(submit.headers.authorization).toBe(`Key ${fake.key}`);
    // The checker is the operator's (docs/safety.md): always on, whatever the user sent.
    expect(submit.body).toEqual({
      prompt: "a copper teapot",
      image_size: "square_hd",
      seed: 7,
      enable_safety_checker: true,
    });

    const states = await pollToEnd(p, upstreamTaskId, r);
    expect(states.map((s) => s.state)).toEqual(["pending", "running", "succeeded"]);
    const paths = fake.state.requests.slice(1).map((q) => q.path);
    expect(paths.every((path) => path.startsWith("/fal-ai/flux/requests/"))).toBe(true);
    expect(paths.at(-1)).toMatch(/^\/fal-ai\/flux\/requests\/[0-9a-f-]+$/);
    expect(fake.wrongPaths).toEqual([]);
    const last = states.at(-1)!;
    if (last.state !== "succeeded") throw new Error("unreachable");
    const file = await downloadAsset(last.assets[0]!, signal(), { allowPrivate: true });
    expect(file.contentType).toBe("image/png");
    expect(Buffer.from(file.bytes).equals(Buffer.from(SAMPLE_PNG))).toBe(true);
  });

  test("Kling text-to-video through fal: a deep endpoint id polls under fal-ai/kling-video; the MP4 downloads", async () => {
    const p = provider();
    const r = request("fal", "video", T2V, "a hot-air balloon", { duration: "10", aspect_ratio: "9:16" });
    const { upstreamTaskId } = await p.submit(r, signal());
    expect(fake.state.requests[0]!.path).toBe(`/${T2V}`);
    const last = (await pollToEnd(p, upstreamTaskId, r)).at(-1)!;
    if (last.state !== "succeeded") throw new Error(JSON.stringify(last));
    expect(fake.state.requests.slice(1).every((q) => q.path.startsWith("/fal-ai/kling-video/requests/"))).toBe(true);
    const file = await downloadAsset(last.assets[0]!, signal(), { allowPrivate: true });
    expect(Buffer.from(file.bytes).equals(Buffer.from(SAMPLE_MP4))).toBe(true);
  });
});

describe("fal: failures", () => {
  test("a request the model fails: COMPLETED, then the result is 422 with `detail` → the task fails with fal's words", async () => {
    fake.outcome = "failed";
    const p = provider();
    const r = request("fal", "image", "fal-ai/flux/dev", "something flagged");
    const { upstreamTaskId } = await p.submit(r, signal());
    const last = (await pollToEnd(p, upstreamTaskId, r)).at(-1)!;
    expect(last).toEqual({
      state: "failed",
      message:
        "fal could not run the request: prompt: The content could not be processed because it contained material flagged by a content checker.",
    });
  });

  test("422 at submit (an input fal refuses) is a bad request with the field named, not retried", async () => {
    // A picture fal cannot download (image-inputs.test.ts has the ones it can).
    const gone = { url: "http://127.0.0.1:1/gone.png", contentType: "image/png", width: 1, height: 1 };
    const r = withInputs(request("fal", "video", I2V, "no image given", { image: "file_gone" }), {
      image: { ...gone, bytes: async () => new Uint8Array() },
    });
    await expectProviderError(provider().submit(r, signal()), "bad_request", {
      retryable: false,
      message: /image_url: could not be downloaded/,
    });
    expect(fake.state.requests.length).toBe(1);
  });

  test("a wrong key is an auth error naming FAL_KEY", async () => {
    await expectProviderError(
      provider("wrong:key").submit(request("fal", "image", "fal-ai/flux/dev"), signal()),
      "auth",
      {
        hint: /FAL_KEY/,
      },
    );
  });

  test("429 at submit is retried; 500 at submit is not (the request may be queued and billed)", async () => {
    fake.state.fail("create", "rate_limit", 1);
    await provider().submit(request("fal", "image", "fal-ai/flux/dev"), signal());
    expect(fake.state.requests.length).toBe(2);
    fake.state.reset();
    fake.state.fail("create", "server", 1);
    await expectProviderError(provider().submit(request("fal", "image", "fal-ai/flux/dev"), signal()), "server", {
      retryable: false,
    });
    expect(fake.state.requests.length).toBe(1);
  });

  test("an endpoint id that is not owner/alias is refused before any request", async () => {
    for (const bad of ["flux", "fal-ai/../admin", "fal-ai//x", "https://evil.example/x"]) {
      await expectProviderError(
        provider().submit(request("fal", "image", "fal-ai/flux/dev", "x", {}, bad), signal()),
        "bad_request",
      );
    }
    expect(fake.state.requests.length).toBe(0);
  });
});

describe("fal: cancel", () => {
  test("PUT …/{owner}/{alias}/requests/{id}/cancel while queued; after completion ALREADY_COMPLETED is not an error", async () => {
    fake.steps = { queued: 5, running: 1 };
    const p = provider();
    const { upstreamTaskId } = await p.submit(request("fal", "video", T2V, "x"), signal());
    await p.cancel!(upstreamTaskId, signal());
    const cancel = fake.state.requests.at(-1)!;
    expect(cancel.method).toBe("PUT");
    expect(cancel.path).toMatch(/^\/fal-ai\/kling-video\/requests\/[0-9a-f-]+\/cancel$/);
    expect(fake.canceled.length).toBe(1);

    fake.steps = { queued: 0, running: 0 };
    const done = await p.submit(request("fal", "image", "fal-ai/flux/dev", "x"), signal());
    await p.cancel!(done.upstreamTaskId, signal());
    expect(fake.canceled.length).toBe(2);
  });
});
