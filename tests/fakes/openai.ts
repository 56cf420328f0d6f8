/**
 * A fake of OpenAI's Images API (`POST /v1/images/generations`, API reference
 * "Create image"; `POST /v1/images/edits`, "Create image edit": multipart with the picture(s) as `image` or
 * `image[]` files and an optional PNG `mask`): Bearer auth, `{created, data: [{b64_json}]}` answers, and
 * errors as `{error: {message, type, param, code}}`, including the 429 for an
 * exhausted quota and the 400 of the safety system.
 */
import {
  FakeState,
  type Fault,
  json,
  malformed,
  pictureType,
  type RunningFake,
  SAMPLE_PNG,
  sha256hex,
  startFake,
} from "./common";

const MODELS = new Set(["dall-e-2", "dall-e-3", "gpt-image-1", "gpt-image-1-mini"]);
const SIZES: Record<string, Set<string>> = {
  "dall-e-3": new Set(["1024x1024", "1792x1024", "1024x1792"]),
  "gpt-image-1": new Set(["auto", "1024x1024", "1536x1024", "1024x1536"]),
};

/** Images API "Create image": quality and style values per model. */
const QUALITIES: Record<string, Set<string>> = {
  "dall-e-3": new Set(["standard", "hd"]),
  "gpt-image-1": new Set(["low", "medium", "high", "auto"]),
};

export type OpenAIFault = Fault | "quota" | "content_policy";

export interface OpenAIFake extends RunningFake<OpenAIFault> {
  apiKey: string;
  /** Milliseconds a successful answer takes (a slow image; tests cancel meanwhile). */
  delayMs: number;
  /** The PNG every image answer carries (default: a small sample picture). */
  picture?: Uint8Array;
}

const error = (
  status: number,
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
  headers: Record<string, string> = {},
) => json({ error: { message, type, param, code } }, status, headers);

/** A multipart body as the log keeps it: text fields as they are (numbers parsed), files as {type, size, name}. */
function formSummary(form: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of form.entries() as Iterable<[string, string | File]>) {
    const v =
      typeof value === "string"
        ? /^\d+$/.test(value)
          ? Number(value)
          : value
        : { type: value.type, size: value.size, name: value.name };
    out[key] = key in out ? [out[key], v].flat() : v;
  }
  return out;
}

/**
 * "Create image edit": gpt-image-1 takes up to 16 PNG, JPEG or WebP pictures under 50 MB each (`image` or
 * `image[]`); the optional `mask` is a PNG. Each file is checked by its bytes and recorded in `state.fetched`.
 */
async function editProblem(
  state: FakeState<string>,
  form: FormData,
  model: unknown,
): Promise<{ message: string; param: string } | null> {
  if (model !== "gpt-image-1" && model !== "gpt-image-1-mini")
    return { message: `Invalid value: '${String(model)}'. Edits take gpt-image-1.`, param: "model" };
  const images = [...form.getAll("image"), ...form.getAll("image[]")];
  if (images.length === 0 || images.length > 16)
    return { message: "Missing required parameter: 'image'.", param: "image" };
  const files: [string, FormDataEntryValue][] = [...images.map((f) => ["image", f] as [string, FormDataEntryValue])];
  const mask = form.get("mask");
  if (mask !== null) files.push(["mask", mask]);
  for (const [field, file] of files) {
    if (typeof file === "string") return { message: `Invalid type for '${field}': expected a file.`, param: field };
    const bytes = new Uint8Array(await file.arrayBuffer());
    const type = pictureType(bytes);
    if (!type || (field === "mask" && type !== "image/png") || bytes.byteLength > 50 * 1024 * 1024)
      return {
        message: `Invalid image file or mode for '${field}'. Supported formats are ${field === "mask" ? "'png'" : "'png', 'jpeg' and 'webp'"}.`,
        param: field,
      };
    state.fetched.push({ field, url: "", contentType: type, bytes: bytes.byteLength, sha256: sha256hex(bytes) });
  }
  return null;
}

export function startOpenAIFake(opts: { port?: number; apiKey?: string } = {}): OpenAIFake {
  const state = new FakeState<OpenAIFault>();
  const fake = {} as OpenAIFake;
  const sample = Buffer.from(SAMPLE_PNG).toString("base64");

  const running = startFake(
    opts.port ?? 0,
    "/v1",
    async (req, url) => {
      const edits = url.pathname === "/v1/images/edits" && req.method === "POST";
      const form = edits
        ? await req
            .clone()
            .formData()
            .catch(() => null)
        : null;
      const entry = await state.log(req);
      if (edits) {
        // Logged as its fields, each file as {type, size, name}.
        entry.body = form ? formSummary(form) : undefined;
        if (!form) return error(400, "Invalid multipart body.", "invalid_request_error", "invalid_body");
      }
      if ((url.pathname !== "/v1/images/generations" && !edits) || req.method !== "POST") {
        return error(404, `Invalid URL (${req.method} ${url.pathname})`, "invalid_request_error", null);
      }
      const auth = req.headers.get("authorization");
      if (auth !== `Bearer ${fake.apiKey}`) {
        const shown = (auth ?? "").replace(/^Bearer /, "").slice(0, 6);
        return error(
          401,
          `Incorrect API key provided: ${shown}***. You can find your API key at https://platform.openai.com/account/api-keys.`,
          "invalid_request_error",
          "invalid_api_key",
        );
      }
      switch (state.take("create")) {
        case "auth":
          return error(401, "Incorrect API key provided: sk-old***.", "invalid_request_error", "invalid_api_key");
        case "rate_limit":
          return error(
            429,
            "Rate limit reached for images per minute. Please try again in 1s.",
            "requests",
            "rate_limit_exceeded",
            null,
            { "retry-after": "1" },
          );
        case "quota":
          return error(
            429,
            "You exceeded your current quota, please check your plan and billing details.",
            "insufficient_quota",
            "insufficient_quota",
          );
        case "content_policy":
          return error(
            400,
            "Your request was rejected as a result of our safety system.",
            "invalid_request_error",
            "content_policy_violation",
          );
        case "server":
          return error(
            500,
            "The server had an error while processing your request. Sorry about that!",
            "server_error",
            null,
          );
        case "malformed":
          return malformed();
        case "hang":
          return state.hang();
      }
      if (fake.delayMs > 0) await Bun.sleep(fake.delayMs);
      const b = (entry.body ?? {}) as Record<string, unknown>;
      if (typeof b.model !== "string" || !MODELS.has(b.model))
        return error(
          404,
          `The model '${String(b.model)}' does not exist or you do not have access to it.`,
          "invalid_request_error",
          "model_not_found",
        );
      if (typeof b.prompt !== "string" || b.prompt === "")
        return error(400, "Invalid 'prompt': empty string.", "invalid_request_error", "empty_string", "prompt");
      if (edits) {
        const problem = await editProblem(state, form!, b.model);
        if (problem) return error(400, problem.message, "invalid_request_error", "invalid_value", problem.param);
      }
      if (b.n !== undefined && b.model === "dall-e-3" && b.n !== 1)
        return error(400, "Invalid 'n': dall-e-3 only supports n=1.", "invalid_request_error", "invalid_value", "n");
      if (b.size !== undefined && SIZES[b.model] && !SIZES[b.model]!.has(String(b.size)))
        return error(400, `Invalid value: '${String(b.size)}'.`, "invalid_request_error", "invalid_value", "size");
      if (b.quality !== undefined && QUALITIES[b.model] && !QUALITIES[b.model]!.has(String(b.quality)))
        return error(
          400,
          `Invalid value: '${String(b.quality)}'.`,
          "invalid_request_error",
          "invalid_value",
          "quality",
        );
      if (b.style !== undefined && (b.model !== "dall-e-3" || !["vivid", "natural"].includes(String(b.style))))
        return error(400, `Invalid value: '${String(b.style)}'.`, "invalid_request_error", "invalid_value", "style");
      if (b.model.startsWith("gpt-image") && b.response_format !== undefined)
        return error(
          400,
          "Unknown parameter: 'response_format'.",
          "invalid_request_error",
          "unknown_parameter",
          "response_format",
        );
      // DALL·E answers with URLs unless asked for base64; the SDK asks for b64_json.
      if (b.model.startsWith("dall-e") && b.response_format !== "b64_json") {
        return json({
          created: Math.floor(Date.now() / 1000),
          data: [{ url: "https://oaidalleapiprodscus.example/img.png", revised_prompt: b.prompt }],
        });
      }
      const b64 = fake.picture ? Buffer.from(fake.picture).toString("base64") : sample;
      const data =
        b.model === "dall-e-3"
          ? [{ b64_json: b64, revised_prompt: `A detailed rendering: ${b.prompt}` }]
          : [{ b64_json: b64 }];
      const body: Record<string, unknown> = { created: Math.floor(Date.now() / 1000), data };
      if (b.model.startsWith("gpt-image")) {
        Object.assign(body, {
          background: "opaque",
          output_format: "png",
          quality: "medium",
          size: "1024x1024",
          usage: {
            input_tokens: 12,
            output_tokens: 1056,
            total_tokens: 1068,
            input_tokens_details: { text_tokens: 12, image_tokens: 0 },
          },
        });
      }
      return json(body);
    },
    state,
  );

  return Object.assign(fake, running, {
    apiKey: opts.apiKey ?? "sk-fake-openai",
    delayMs: 0,
  });
}
