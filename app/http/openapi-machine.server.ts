/**
 * The OpenAPI paths of the endpoints only keys reach, which answer in their own protocols rather than the envelope
 * (docs/api.md §5.6): OpenAI's images API (`/v1/images/generations`, `/v1/images/edits`; docs/openai-compat.md)
 * and the MCP server (`/mcp`, JSON-RPC 2.0 over Streamable HTTP; docs/mcp.md). Their schemas are OpenAI's and
 * JSON-RPC's shapes as the routes send them; like every response schema here they allow fields added later.
 */
import { CATALOG, type Offering } from "~/domain/catalog";
import { DEFAULT_EDIT_MODEL, EDIT_MODEL_ALIASES, MAX_IMAGES } from "~/domain/openai-compat/images";
import { REQUEST_ID_HEADER } from "./openapi-errors.server";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const MACHINE_SECURITY_SCHEME = {
  type: "http",
  scheme: "bearer",
  description: "An API key created on /keys as `Authorization: Bearer atl_…` (acts as its owner).",
} as const;

/** Bearer first (what OpenAI's SDKs and MCP clients send), X-API-Key also accepted. */
const KEY_ONLY = [{ bearer: [] }, { apiKey: [] }];

const RETRY_HEADERS: Json = {
  "Retry-After": { description: "seconds to wait before retrying", schema: { type: "integer" } },
  "x-should-retry": {
    description: "`false` where a retry would create the tasks again or cannot help (OpenAI's SDKs obey it)",
    schema: { type: "string", enum: ["false"] },
  },
};

const isImageModel = (o: Offering) => o.aiType === "image" && o.enabled !== false;
const takesImage = (o: Offering) => o.options.image?.type === "image";
const openAiIds = (models: Offering[]) =>
  models.flatMap((o) =>
    o.provider === "openai" ? [o.model, `${o.provider}/${o.model}`] : [`${o.provider}/${o.model}`],
  );

/** `model`: its known values (the shipped catalog), and any other `<provider>/<model>` an operator adds. */
function modelSchema(known: string[], fallback: string, description: string): Json {
  return {
    anyOf: [
      { type: "string", enum: [...new Set(known)] },
      { type: "string", pattern: "^[^/]+/.+$" },
    ],
    default: fallback,
    description,
  };
}

function imagesFields(models: Json): Json {
  return {
    model: models,
    prompt: { type: "string", minLength: 1, maxLength: 4000, description: "what to draw (or change)" },
    n: { type: "integer", minimum: 1, maximum: MAX_IMAGES, default: 1, description: "images: one task each" },
    size: {
      type: "string",
      description:
        "`WIDTHxHEIGHT` or `auto`: a model's own `size` value, else the nearest of its aspect ratios (docs/openai-compat.md)",
      examples: ["1024x1024", "1792x1024"],
    },
    quality: { type: "string", description: "for models with a quality option (`hd` ↔ `high`, `standard` ↔ `medium`)" },
    response_format: { type: "string", enum: ["url", "b64_json"], default: "url" },
  };
}

function errorResponse(description: string, example: Json, headers: Json = {}): Json {
  return {
    description,
    headers: { ...REQUEST_ID_HEADER, ...headers },
    content: { "application/json": { schema: ref("OpenAIError"), example: { error: example } } },
  };
}

const openAiError = (message: string, type: string, code: string | null, param: string | null = null) => ({
  message,
  type,
  param,
  code,
});

function imagesResponses(extra: Json = {}): Json {
  return {
    "200": {
      description: "The images, one per task, each a stored result (`url`) or its bytes (`b64_json`).",
      headers: REQUEST_ID_HEADER,
      content: {
        "application/json": {
          schema: ref("OpenAIImagesResponse"),
          example: { created: 1795000000, data: [{ url: "https://atelier.example.com/media/u/0-a1b2.png" }] },
        },
      },
    },
    "400": errorResponse(
      "A bad field (`param` names it), a body that is not what the endpoint reads (or over its size limit: 1 MiB of JSON, FILE_MAX_BYTES a file), a picture refused, a full file storage, invalid options.",
      openAiError(
        "Invalid value for 'n': expected an integer from 1 to 4.",
        "invalid_request_error",
        "invalid_value",
        "n",
      ),
    ),
    "401": errorResponse(
      "No key, an unknown or a revoked key.",
      openAiError("API key not found", "invalid_request_error", "invalid_api_key"),
    ),
    "403": errorResponse(
      "The key lacks a scope, the account is suspended, or the model needs a plan.",
      openAiError("forbidden: this key lacks the generate scope", "permission_error", "insufficient_permissions"),
    ),
    "404": errorResponse(
      "An unknown, disabled or non-image model.",
      openAiError(
        "The model `dall-e-9` does not exist or you do not have access to it.",
        "invalid_request_error",
        "model_not_found",
        "model",
      ),
    ),
    "405": errorResponse("Not POST.", openAiError("method not allowed", "invalid_request_error", null), {
      Allow: { schema: { type: "string" } },
    }),
    ...extra,
    "429": errorResponse(
      "Not enough credits or the key's credit limit (`insufficient_quota`), or the rate limit or too many waiting requests (`rate_limit_exceeded`).",
      openAiError("insufficient credits: need 5, have 2", "insufficient_quota", "insufficient_quota"),
      RETRY_HEADERS,
    ),
    "500": errorResponse(
      "Every task of the request failed (the provider's message).",
      openAiError("upstream error: openai failed", "server_error", "generation_failed"),
      RETRY_HEADERS,
    ),
    "503": errorResponse(
      "The database is busy: `service busy, please try again`.",
      openAiError("service busy, please try again", "server_error", null),
      RETRY_HEADERS,
    ),
    "504": errorResponse(
      "Not finished after 60 s: the tasks go on (the message links them).",
      openAiError("the image is not ready after 60 s; the task goes on: …", "server_error", "timeout"),
      RETRY_HEADERS,
    ),
  };
}

/** One images operation: key-only, its body of `contentType`, OpenAI's answers. */
function imagesOperation(op: { operationId: string; summary: string; description: string; body: Json }): Json {
  return {
    post: {
      operationId: op.operationId,
      tags: ["OpenAI-compatible"],
      summary: op.summary,
      description: op.description,
      security: KEY_ONLY,
      requestBody: { required: true, content: op.body },
      responses: imagesResponses(),
    },
  };
}

function imagesPaths(): Json {
  const images = CATALOG.filter(isImageModel);
  const generations = imagesOperation({
    operationId: "createImage",
    summary: "OpenAI-compatible image generation: one Atelier task per image, answered when they finish",
    description:
      "OpenAI's `POST /images/generations` with an Atelier key (docs/openai-compat.md): each image is a task (credits, the key's cap, history, webhooks), the request waits for them (at most 60 s). Answers OpenAI's shapes, not the envelope. Scope: `generate`. Each image is one request against the rate limit.",
    body: {
      "application/json": {
        schema: {
          type: "object",
          required: ["prompt"],
          properties: {
            ...imagesFields(
              modelSchema(openAiIds(images), "dall-e-3", "an OpenAI model id or `<provider>/<model>` of the catalog"),
            ),
            style: { type: "string", description: "for models with a style option (`dall-e-3`: vivid, natural)" },
          },
          description: "Fields OpenAI defines that Atelier does not use (`user`, `background`…) are ignored.",
        },
        example: { model: "dall-e-3", prompt: "a lighthouse at dusk", size: "1792x1024" },
      },
    },
  });
  const editable = images.filter(takesImage);
  const edits = imagesOperation({
    operationId: "editImage",
    summary: "OpenAI-compatible image edit: the picture (and mask) stored as your files, one task per image",
    description:
      'OpenAI\'s `POST /images/edits` with an Atelier key (docs/openai-compat.md "Edits"): the picture and the mask are stored like `POST /api/files` (upload limit, bytes judged, quota), then each image is a task with `options.image` (and `options.mask`) set to them, waited for like generations. Only models whose options include `image`. Scopes: `generate` and `files`.',
    body: {
      "multipart/form-data": {
        schema: {
          type: "object",
          required: ["image", "prompt"],
          properties: {
            image: { type: "string", format: "binary", description: "PNG, JPEG or WebP (one file)" },
            mask: { type: "string", format: "binary", description: "for models with a mask option" },
            ...imagesFields(
              modelSchema(
                [...Object.keys(EDIT_MODEL_ALIASES), ...openAiIds(editable)],
                DEFAULT_EDIT_MODEL,
                "`gpt-image-1` or `dall-e-2` (both the catalog's gpt-image-1), or `<provider>/<model>` of a catalog model with an image option",
              ),
            ),
          },
        },
      },
    },
  });
  return { "/v1/images/generations": generations, "/v1/images/edits": edits };
}

function rpcResponse(description: string, example: Json, headers: Json = {}): Json {
  return {
    description,
    headers: { ...REQUEST_ID_HEADER, ...headers },
    content: { "application/json": { schema: ref("JsonRpcResponse"), example } },
  };
}

const rpcError = (code: number, message: string) => ({ jsonrpc: "2.0", error: { code, message }, id: null });

function mcpPath(): Json {
  return {
    "/mcp": {
      post: {
        operationId: "callMcp",
        tags: ["MCP"],
        summary: "The MCP server (Streamable HTTP, stateless, JSON answers): tools for agents",
        description:
          "JSON-RPC 2.0 messages of the Model Context Protocol (docs/mcp.md): `initialize`, `tools/list`, `tools/call` with the tools `list_models`, `generate` (`wait_seconds` ≤ 60), `get_generation`, `list_generations`, `get_credits`, `upload_image`. Send `Accept: application/json, text/event-stream`. A tool's refusal is a result with `isError: true` and the envelope's message; each tool needs its scope (docs/usage.md). Each JSON-RPC request of a batch is one request against the rate limit. No key or a bad one: 401 before any MCP exchange. GET and DELETE answer 405 (no server-sent stream, no session).",
        security: KEY_ONLY,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { oneOf: [ref("JsonRpcMessage"), { type: "array", items: ref("JsonRpcMessage") }] },
              example: {
                jsonrpc: "2.0",
                id: 1,
                method: "tools/call",
                params: { name: "get_credits", arguments: {} },
              },
            },
          },
        },
        responses: {
          "200": {
            description: "The JSON-RPC answer (an array for a batch).",
            headers: REQUEST_ID_HEADER,
            content: {
              "application/json": {
                schema: { oneOf: [ref("JsonRpcResponse"), { type: "array", items: ref("JsonRpcResponse") }] },
                example: {
                  jsonrpc: "2.0",
                  id: 1,
                  result: { content: [{ type: "text", text: '{"left_credits":20,"total_credits":20}' }] },
                },
              },
            },
          },
          "202": {
            description: "Only notifications or responses were sent: nothing to answer.",
            headers: REQUEST_ID_HEADER,
          },
          "400": rpcResponse(
            "The body is not JSON (or over 1 MiB), or not a JSON-RPC message.",
            rpcError(-32700, "invalid params: body is not valid JSON"),
          ),
          "401": rpcResponse("No key, an unknown or a revoked key.", rpcError(-32001, "no auth, please sign-in"), {
            "WWW-Authenticate": { schema: { type: "string" } },
          }),
          "403": rpcResponse("The account is suspended.", rpcError(-32001, "account suspended")),
          "405": rpcResponse("Not POST.", rpcError(-32001, "method not allowed"), {
            Allow: { schema: { type: "string" } },
          }),
          "406": rpcResponse(
            "The Accept header does not take both application/json and text/event-stream.",
            rpcError(-32000, "Not Acceptable: Client must accept both application/json and text/event-stream"),
          ),
          "415": rpcResponse(
            "The body is not application/json.",
            rpcError(-32000, "Unsupported Media Type: Content-Type must be application/json"),
          ),
          "429": rpcResponse("The rate limit (one unit per JSON-RPC request).", rpcError(-32001, "Too Many Requests"), {
            "Retry-After": RETRY_HEADERS["Retry-After"],
          }),
          "503": rpcResponse(
            "The database is busy: `service busy, please try again`.",
            rpcError(-32001, "service busy, please try again"),
            {
              "Retry-After": RETRY_HEADERS["Retry-After"],
            },
          ),
        },
      },
    },
  };
}

/** The paths of the key-only endpoints, beside the envelope endpoints of the endpoint table. */
export function machinePaths(): Json {
  return { ...imagesPaths(), ...mcpPath() };
}

export const MACHINE_TAGS = ["OpenAI-compatible", "MCP"];

export const MACHINE_SCHEMAS: Json = {
  OpenAIImagesResponse: {
    type: "object",
    required: ["created", "data"],
    properties: {
      created: { type: "integer", description: "Unix seconds" },
      data: {
        type: "array",
        items: {
          type: "object",
          properties: {
            url: { type: "string", format: "uri", description: "the stored result (response_format url)" },
            b64_json: { type: "string", description: "the result's bytes in base64 (response_format b64_json)" },
            revised_prompt: { type: "string" },
          },
        },
      },
    },
    description: "OpenAI's images answer (docs/openai-compat.md), not the envelope.",
  },
  OpenAIError: {
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["message", "type", "param", "code"],
        properties: {
          message: { type: "string", description: "Atelier's envelope message" },
          type: { type: "string", examples: ["invalid_request_error", "permission_error", "insufficient_quota"] },
          param: { type: ["string", "null"] },
          code: { type: ["string", "null"], examples: ["invalid_api_key", "model_not_found", "invalid_value"] },
        },
      },
    },
    description:
      "OpenAI's error shape with the status OpenAI gives the same failure (docs/decisions/118-openai-error-mapping.md).",
  },
  JsonRpcMessage: {
    type: "object",
    required: ["jsonrpc"],
    properties: {
      jsonrpc: { const: "2.0" },
      id: { type: ["string", "integer"], description: "absent in a notification" },
      method: { type: "string", examples: ["initialize", "tools/list", "tools/call", "notifications/initialized"] },
      params: { type: "object" },
    },
  },
  JsonRpcResponse: {
    type: "object",
    required: ["jsonrpc"],
    properties: {
      jsonrpc: { const: "2.0" },
      id: { type: ["string", "integer", "null"] },
      result: { type: "object", description: "the method's result (MCP: tools, a tool's content and isError…)" },
      error: {
        type: "object",
        required: ["code", "message"],
        properties: { code: { type: "integer" }, message: { type: "string" }, data: {} },
      },
    },
  },
};
