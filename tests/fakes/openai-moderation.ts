/**
 * A fake of OpenAI's moderation endpoint (`POST /v1/moderations`, API reference "Create moderation"): Bearer auth,
 * `{model, input}` where input is a string, an array of strings, or an array of `{type: "text", text}` and
 * `{type: "image_url", image_url: {url}}` parts; it answers `{id, model, results: [{flagged, categories,
 * category_scores, category_applied_input_types}]}` and errors as `{error: {message, type, param, code}}`.
 * A text holding one of `flagWords` (or a picture whose bytes' SHA-256 is in `flagImages`) is flagged `sexual`.
 */
import { FakeState, type Fault, fakeId, json, malformed, type RunningFake, sha256hex, startFake } from "./common";

const CATEGORIES = [
  "sexual",
  "sexual/minors",
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "violence",
  "violence/graphic",
];

export interface ModerationFake extends RunningFake<Fault> {
  apiKey: string;
  /** Words whose presence in a text input flags it (`sexual`). */
  flagWords: string[];
  /** SHA-256 (hex) of pictures that are flagged (`sexual`). */
  flagImages: Set<string>;
  /** Every picture is flagged (`sexual`). */
  flagAllImages: boolean;
  /** The inputs received, in order: text, or `image:<sha256>` for a picture. */
  inputs: string[];
}

const error = (status: number, message: string, type: string, code: string | null, param: string | null = null) =>
  json({ error: { message, type, param, code } }, status);

export function startModerationFake(opts: { apiKey?: string } = {}): ModerationFake {
  const state = new FakeState<Fault>();
  const fake = {} as ModerationFake;
  const running = startFake(
    0,
    "/v1",
    async (req, url) => {
      const entry = await state.log(req);
      if (url.pathname !== "/v1/moderations" || req.method !== "POST")
        return error(404, `Invalid URL (${req.method} ${url.pathname})`, "invalid_request_error", null);
      if (req.headers.get("authorization") !== `Bearer ${fake.apiKey}`)
        return error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
      switch (state.take("any")) {
        case "rate_limit":
          return error(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded");
        case "server":
          return error(500, "The server had an error while processing your request.", "server_error", null);
        case "malformed":
          return malformed();
        case "hang":
          return state.hang();
        case "auth":
          return error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
      }
      const body = entry.body as { model?: unknown; input?: unknown } | undefined;
      if (
        body?.model !== undefined &&
        body.model !== "omni-moderation-latest" &&
        body.model !== "text-moderation-latest"
      )
        return error(400, `Invalid value for 'model': ${String(body.model)}`, "invalid_request_error", null, "model");
      const parts = typeof body?.input === "string" ? [body.input] : Array.isArray(body?.input) ? body.input : null;
      if (!parts || parts.length === 0)
        return error(400, "Missing required parameter: 'input'.", "invalid_request_error", null, "input");
      let flagged = false;
      const applied = new Set<string>();
      for (const part of parts as unknown[]) {
        const p = part as { type?: string; text?: unknown; image_url?: { url?: unknown } };
        const text = typeof part === "string" ? part : p.type === "text" && typeof p.text === "string" ? p.text : null;
        if (text !== null) {
          fake.inputs.push(text);
          applied.add("text");
          if (fake.flagWords.some((w) => text.toLowerCase().includes(w.toLowerCase()))) flagged = true;
          continue;
        }
        const u = p.type === "image_url" ? p.image_url?.url : undefined;
        const m = typeof u === "string" ? /^data:image\/(png|jpeg|webp|gif);base64,(.+)$/.exec(u) : null;
        if (!m) return error(400, "Invalid image URL.", "invalid_request_error", "invalid_image_url", "input");
        const digest = sha256hex(Buffer.from(m[2]!, "base64"));
        fake.inputs.push(`image:${digest}`);
        applied.add("image");
        if (fake.flagAllImages || fake.flagImages.has(digest)) flagged = true;
      }
      const categories = Object.fromEntries(CATEGORIES.map((c) => [c, flagged && c === "sexual"]));
      const scores = Object.fromEntries(CATEGORIES.map((c) => [c, flagged && c === "sexual" ? 0.97 : 0.0001]));
      const types = Object.fromEntries(CATEGORIES.map((c) => [c, [...applied]]));
      return json({
        id: `modr-${fakeId()}`,
        model: "omni-moderation-latest",
        results: [{ flagged, categories, category_scores: scores, category_applied_input_types: types }],
      });
    },
    state,
  );
  return Object.assign(fake, running, {
    apiKey: opts.apiKey ?? "sk-moderation-test",
    flagWords: [] as string[],
    flagImages: new Set<string>(),
    flagAllImages: false,
    inputs: [] as string[],
  });
}
