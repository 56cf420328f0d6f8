/**
 * A fake of Google's Gemini API for media (https://ai.google.dev/api, the image generation guide
 * https://ai.google.dev/gemini-api/docs/image-generation, Imagen https://ai.google.dev/gemini-api/docs/imagen,
 * Veo https://ai.google.dev/gemini-api/docs/video), `x-goog-api-key` required on every call:
 * - `POST /v1beta/models/{gemini image model}:generateContent` → `candidates[0].content.parts` with a text part
 *   and an `inlineData` image part; a blocked prompt → `promptFeedback.blockReason` and no candidates;
 * - `POST /v1beta/models/{imagen model}:predict` → `predictions[].{bytesBase64Encoded, mimeType}`; a filtered
 *   prompt → `predictions: [{raiFilteredReason}]`;
 * - `POST /v1beta/models/{veo model}:predictLongRunning` → `{name: "models/{m}/operations/{id}"}`;
 *   `GET /v1beta/models/{m}/operations/{id}` → `{name}` (no `done`) while running, then
 *   `{name, done: true, response: {generateVideoResponse: {generatedSamples: [{video: {uri}}]}}}`, or a filtered
 *   result (`raiMediaFilteredCount`, `raiMediaFilteredReasons`);
 * - `GET /v1beta/files/{id}:download?alt=media` → the video, with the key only.
 * Errors are `{error: {code, message, status}}` (400 INVALID_ARGUMENT, 403 PERMISSION_DENIED, 429 RESOURCE_EXHAUSTED,
 * 500 INTERNAL); a model of the wrong kind for the method answers 404 NOT_FOUND as Google does.
 */
import {
  FakeState,
  json,
  malformed,
  pictureType,
  type RunningFake,
  SAMPLE_MP4,
  SAMPLE_PNG,
  sha256hex,
  startFake,
} from "./common";

export type GoogleOutcome = "succeeded" | "blocked";

const error = (code: number, status: string, message: string) => json({ error: { code, message, status } }, code);

const GEMINI_ASPECTS = ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"];
const IMAGEN_ASPECTS = ["1:1", "3:4", "4:3", "9:16", "16:9"];

export interface GoogleFake extends RunningFake {
  apiKey: string;
  outcome: GoogleOutcome;
  /** Polls an operation answers without `done` before it is done. */
  pollsBeforeDone: number;
  operations: Map<string, { model: string; polls: number; outcome: GoogleOutcome; body: any }>;
  /** File downloads: whether each carried the key. */
  downloads: { withKey: boolean }[];
}

/** Checks an inline picture (base64 whose bytes are the named image type) and records it in `state.fetched`. */
function inlinePicture(state: FakeState<string>, field: string, data: unknown, mimeType: unknown): string | null {
  if (typeof data !== "string" || data === "") return `${field}: data is required`;
  const bytes = new Uint8Array(Buffer.from(data, "base64"));
  const type = pictureType(bytes);
  if (!type || type !== mimeType) return `${field}: Unable to process input image (${String(mimeType)})`;
  state.fetched.push({ field, url: "", contentType: type, bytes: bytes.byteLength, sha256: sha256hex(bytes) });
  return null;
}

export function startGoogleFake(opts: { port?: number; apiKey?: string } = {}): GoogleFake {
  const state = new FakeState();
  const operations: GoogleFake["operations"] = new Map();
  const fake = {} as GoogleFake;

  const running = startFake(
    opts.port ?? 0,
    "",
    async (req, u, origin) => {
      const download = /^\/v1beta\/files\/([\w-]+):download$/.exec(u.pathname);
      if (download && req.method === "GET") {
        const withKey = req.headers.get("x-goog-api-key") === fake.apiKey;
        fake.downloads.push({ withKey });
        if (!withKey) return error(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers.");
        return new Response(SAMPLE_MP4, { headers: { "content-type": "video/mp4" } });
      }
      const entry = await state.log(req);
      const key = req.headers.get("x-goog-api-key");
      if (!key) return error(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers.");
      if (key !== fake.apiKey) return error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");

      const op = /^\/v1beta\/(models\/[\w.-]+\/operations\/[\w-]+)$/.exec(u.pathname);
      if (op && req.method === "GET") {
        switch (state.take("poll")) {
          case "rate_limit":
            return error(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).");
          case "server":
            return error(500, "INTERNAL", "An internal error has occurred.");
          case "malformed":
            return malformed();
          case "hang":
            return state.hang();
        }
        const o = operations.get(op[1]!);
        if (!o) return error(404, "NOT_FOUND", "Operation not found.");
        o.polls++;
        if (o.polls <= fake.pollsBeforeDone) return json({ name: op[1] });
        if (o.outcome === "blocked")
          return json({
            name: op[1],
            done: true,
            response: {
              "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
              generateVideoResponse: {
                raiMediaFilteredCount: 1,
                raiMediaFilteredReasons: ["The prompt could not be submitted: it may violate our policies."],
              },
            },
          });
        const fileId = op[1]!.split("/").pop();
        return json({
          name: op[1],
          done: true,
          response: {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
            generateVideoResponse: {
              generatedSamples: [{ video: { uri: `${origin}/v1beta/files/${fileId}:download?alt=media` } }],
            },
          },
        });
      }

      const call = /^\/v1beta\/models\/([\w.-]+):(generateContent|predict|predictLongRunning)$/.exec(u.pathname);
      if (!call || req.method !== "POST") return error(404, "NOT_FOUND", `${u.pathname} is not found.`);
      const [, model, method] = call;
      const kind = model!.startsWith("imagen-")
        ? "predict"
        : model!.startsWith("veo-")
          ? "predictLongRunning"
          : "generateContent";
      if (kind !== method || (kind === "generateContent" && !model!.includes("image")))
        return error(
          404,
          "NOT_FOUND",
          `models/${model} is not found for API version v1beta, or is not supported for ${method}.`,
        );
      switch (state.take("create")) {
        case "auth":
          return error(403, "PERMISSION_DENIED", "Permission denied on resource project.");
        case "rate_limit":
          return error(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).");
        case "server":
          return error(500, "INTERNAL", "An internal error has occurred.");
        case "malformed":
          return malformed();
        case "hang":
          return state.hang();
      }
      const body = (entry.body ?? {}) as any;
      const png = Buffer.from(SAMPLE_PNG).toString("base64");

      if (method === "generateContent") {
        const parts = body?.contents?.[0]?.parts;
        const text = Array.isArray(parts) ? parts.find((p: any) => typeof p?.text === "string")?.text : undefined;
        if (!text)
          return error(400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified");
        // An input picture is an inlineData part: base64 of a PNG, JPEG or WebP, its type named.
        for (const p of parts.filter((x: any) => x?.inlineData !== undefined)) {
          const problem = inlinePicture(state, "inlineData", p.inlineData?.data, p.inlineData?.mimeType);
          if (problem) return error(400, "INVALID_ARGUMENT", problem);
        }
        const aspect = body?.generationConfig?.imageConfig?.aspectRatio;
        if (aspect !== undefined && !GEMINI_ASPECTS.includes(aspect))
          return error(400, "INVALID_ARGUMENT", `Invalid aspect ratio: ${aspect}`);
        if (fake.outcome === "blocked")
          return json({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, modelVersion: model });
        return json({
          candidates: [
            {
              content: {
                role: "model",
                parts: [{ text: "Here is your image." }, { inlineData: { mimeType: "image/png", data: png } }],
              },
              finishReason: "STOP",
              index: 0,
            },
          ],
          modelVersion: model,
        });
      }

      const prompt = body?.instances?.[0]?.prompt;
      if (typeof prompt !== "string" || !prompt)
        return error(400, "INVALID_ARGUMENT", "instances[0].prompt: a prompt is required");
      const aspect = body?.parameters?.aspectRatio;
      if (method === "predict") {
        if (aspect !== undefined && !IMAGEN_ASPECTS.includes(aspect))
          return error(400, "INVALID_ARGUMENT", `Aspect ratio ${aspect} is not supported.`);
        if (fake.outcome === "blocked")
          return json({ predictions: [{ raiFilteredReason: "The prompt may violate our policies." }] });
        return json({ predictions: [{ bytesBase64Encoded: png, mimeType: "image/png" }] });
      }
      if (aspect !== undefined && !["16:9", "9:16"].includes(aspect))
        return error(400, "INVALID_ARGUMENT", `Aspect ratio ${aspect} is not supported.`);
      const image = body?.instances?.[0]?.image;
      if (image !== undefined) {
        const problem = inlinePicture(state, "image", image?.bytesBase64Encoded, image?.mimeType);
        if (problem) return error(400, "INVALID_ARGUMENT", problem);
      }
      const id = crypto.randomUUID().replace(/-/g, "").slice(0, 16);
      const name = `models/${model}/operations/${id}`;
      operations.set(name, { model: model!, polls: 0, outcome: fake.outcome, body });
      return json({ name });
    },
    state,
  );
  return Object.assign(fake, running, {
    apiKey: opts.apiKey ?? "gemini-test-key",
    outcome: "succeeded" as GoogleOutcome,
    pollsBeforeDone: 1,
    operations,
    downloads: [] as { withKey: boolean }[],
  });
}
