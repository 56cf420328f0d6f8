/**
 * The MCP tools (docs/mcp.md): each one is an API endpoint spoken as a tool, through the same domain functions, with
 * the endpoint's scope (scopes.ts, `/mcp#<tool>`) and the caller's key (its spending cap). Rate limits are taken per call by the gate
 * in front (key-gate.server.ts). A refusal is a tool error whose text is the envelope's message.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { mcpToolRoute, scopesOf } from "~/domain/api-keys/scopes";
import { listModels } from "~/domain/catalog/models.server";
import { getCredits } from "~/domain/credits/ledger.server";
import { storeFile, toFileView } from "~/domain/files/files.server";
import { historyAfterJson, historyPageJson, normalizePaging } from "~/domain/generations/history.server";
import { startGeneration } from "~/domain/generations/start-generation.server";
import { queryGeneration } from "~/domain/generations/views.server";
import { answerAfterWait, MAX_WAIT_SECONDS, takeWaitSlot } from "~/domain/generations/wait.server";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import { fileUploadBucket, fileUploadPolicy } from "~/domain/rate-limits/policy.server";
import { requireScope } from "~/http/api.server";
import { GENERATE_MESSAGE } from "~/http/endpoints.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import type { Caller } from "~/http/identity.server";
import type { Services } from "~/http/services.server";
import { AppError, isAppError, isDatabaseBusy } from "~/lib/errors";
import { log } from "~/lib/log.server";

export interface ToolContext {
  services: Services;
  caller: Caller;
  /** The HTTP request went away: a held wait ends. */
  signal: AbortSignal;
}

const MIME: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
};

/** Result images this small are also sent inline (image content), so a client shows them without a fetch. */
export const INLINE_IMAGE_MAX_BYTES = 1024 * 1024;
const INLINE_IMAGES_MAX = 4;

/** A stored result's bytes when this node's storage holds it (local storage); null otherwise (S3: linked only). */
export type ReadResult = (url: string) => Promise<Uint8Array | null>;

/**
 * A tool's answer: the JSON as text, each result file as a resource link the client can open, and result images
 * up to INLINE_IMAGE_MAX_BYTES inline as image content.
 */
export async function toolResult(data: unknown, read?: ReadResult): Promise<CallToolResult> {
  const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(data) }];
  const urls = (data as { result_urls?: unknown } | null)?.result_urls;
  if (!Array.isArray(urls)) return { content };
  let inlined = 0;
  for (const url of urls) {
    if (typeof url !== "string") continue;
    const name = url.split("/").pop() ?? url;
    const mimeType = MIME[name.split(".").pop()?.toLowerCase() ?? ""];
    content.push({ type: "resource_link", uri: url, name, ...(mimeType ? { mimeType } : {}) });
    if (!read || !mimeType?.startsWith("image/") || inlined >= INLINE_IMAGES_MAX) continue;
    const bytes = await read(url).catch(() => null);
    if (bytes && bytes.byteLength <= INLINE_IMAGE_MAX_BYTES) {
      content.push({ type: "image", data: Buffer.from(bytes).toString("base64"), mimeType });
      inlined++;
    }
  }
  return { content };
}

/** A refusal as a tool error carrying the envelope's message (docs/design.md §1). */
export function toolError(error: unknown): CallToolResult {
  let message: string;
  if (isAppError(error)) message = error.message;
  else if (isDatabaseBusy(error)) message = new AppError("BUSY").message;
  else {
    log.error("unhandled error in an MCP tool", { error });
    message = new AppError("INTERNAL").message;
  }
  return { isError: true, content: [{ type: "text", text: message }] };
}

/**
 * Runs a tool body as its endpoint would: the key's scopes first (ROUTE_SCOPES' `/mcp#<tool>`; a tool missing from
 * the table is refused rather than open to every key), errors as tool errors.
 */
async function asEndpoint(
  ctxOf: () => ToolContext,
  tool: string,
  body: (ctx: ToolContext) => Promise<unknown>,
): Promise<CallToolResult> {
  try {
    const ctx = ctxOf();
    const route = mcpToolRoute(tool);
    if (scopesOf(route).length === 0) throw new AppError("FORBIDDEN");
    requireScope(ctx.caller, route);
    const storage = getGenerationRuntime().storage;
    return await toolResult(await body(ctx), storage.read && ((url) => storage.read!(url)));
  } catch (error) {
    return toolError(error);
  }
}

const GenId = z.string().min(1).max(200).describe("the task's gen_id");

/**
 * Registers the tools once per server; `ctxOf` gives the request being answered (a server answers one request at a
 * time: handler.server.ts).
 */
export function registerTools(server: McpServer, ctxOf: () => ToolContext): void {
  server.registerTool(
    "list_models",
    {
      description:
        "The models on sale: ai_type, provider, model, credits per task, and the JSON Schema of the options each accepts.",
      inputSchema: { ai_type: z.enum(["image", "video"]).optional().describe("only image or only video models") },
      annotations: { readOnlyHint: true },
    },
    ({ ai_type }) =>
      asEndpoint(ctxOf, "list_models", async ({ services }) => {
        const models = await listModels({ ...services, providers: getGenerationRuntime().providers });
        return { models: ai_type ? models.filter((m) => m.ai_type === ai_type) : models };
      }),
  );

  server.registerTool(
    "generate",
    {
      description:
        "Create a generation task (costs the model's credits when it completes). With wait_seconds (1–60) the answer waits for the task: status completed with result_urls, failed with error_message, or still pending/processing with its gen_id for get_generation.",
      inputSchema: {
        ai_type: z.string().describe("image or video"),
        provider: z.string().describe("the provider, as list_models names it"),
        model: z.string().describe("the model, as list_models names it"),
        prompt: z.string().describe("what to generate, at most 4000 characters"),
        options: z.record(z.string(), z.unknown()).optional().describe("model options (list_models gives each schema)"),
        wait_seconds: z
          .int()
          .min(0)
          .max(MAX_WAIT_SECONDS)
          .optional()
          .describe("seconds to wait for the result (0–60; 0 or absent answers at once)"),
      },
    },
    ({ wait_seconds, ...input }) =>
      asEndpoint(ctxOf, "generate", async ({ services, caller, signal }) => {
        // The slot is taken before anything is created, as for `Prefer: wait` (wait.server.ts).
        const release = wait_seconds ? takeWaitSlot(caller.user.id) : null;
        try {
          const { row } = await startGeneration(
            {
              db: services.db,
              clock: services.clock,
              config: services.config,
              providers: getGenerationRuntime().providers,
              files: getGenerationRuntime().files,
            },
            { userId: caller.user.id, input, apiKeyId: caller.apiKeyId },
          );
          const view =
            release && wait_seconds
              ? await answerAfterWait(services.db, caller.user.id, row.id, {
                  timeoutMs: wait_seconds * 1000,
                  signal,
                })
              : await queryGeneration(services.db, caller.user.id, row.id);
          return { ...view, message: GENERATE_MESSAGE };
        } finally {
          release?.();
        }
      }),
  );

  server.registerTool(
    "get_generation",
    {
      description: "One task's status: pending, processing, completed (result_urls) or failed (error_message).",
      inputSchema: { gen_id: GenId },
      annotations: { readOnlyHint: true },
    },
    ({ gen_id }) =>
      asEndpoint(ctxOf, "get_generation", ({ services, caller }) =>
        queryGeneration(services.db, caller.user.id, gen_id),
      ),
  );

  server.registerTool(
    "list_generations",
    {
      description:
        'Your tasks, newest first, paged (page, page_size ≤ 100), or by cursor ("" for the newest, then next_cursor).',
      inputSchema: {
        page: z.int().min(1).optional(),
        page_size: z.int().min(1).max(100).optional(),
        cursor: z.string().max(200).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    (input) =>
      asEndpoint(ctxOf, "list_generations", async ({ services, caller }) => {
        const paging = normalizePaging(input);
        const json =
          input.cursor === undefined
            ? await historyPageJson(services.db, caller.user.id, paging)
            : await historyAfterJson(services.db, caller.user.id, { cursor: input.cursor, pageSize: paging.pageSize });
        return JSON.parse(json) as unknown;
      }),
  );

  server.registerTool(
    "upload_image",
    {
      description:
        "Upload a PNG, JPEG or WebP picture (base64) as an input file; its file_id goes into generate's options (image, image_end, mask) for models that take pictures. At most about 750 KB through MCP (the request body is limited to 1 MiB); larger files go through POST /api/files.",
      inputSchema: { data: z.string().min(1).describe("the picture's bytes, base64") },
    },
    ({ data }) =>
      asEndpoint(ctxOf, "upload_image", async ({ services, caller }) => {
        const { db, clock, config } = services;
        // As POST /api/files: the upload limit first, then the bytes judged by the files domain.
        await takeOrRefuse(db, fileUploadBucket(caller.user.id), fileUploadPolicy(config), clock.now());
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data))
          throw new AppError("FILE_PARAMS", { reason: "data must be the picture's bytes in base64" });
        const bytes = new Uint8Array(Buffer.from(data, "base64"));
        if (bytes.byteLength > config.FILE_MAX_BYTES)
          throw new AppError("FILE_TOO_LARGE", { max: config.FILE_MAX_BYTES });
        const row = await storeFile(
          { db, clock, config, store: getGenerationRuntime().files },
          { userId: caller.user.id, bytes, source: "upload" },
        );
        return toFileView(row);
      }),
  );

  server.registerTool(
    "get_credits",
    {
      description: "Your credits: left_credits (spendable now) and total_credits (ever granted).",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    () =>
      asEndpoint(ctxOf, "get_credits", ({ services, caller }) =>
        services.db.exec(getCredits(services.db, caller.user.id, services.clock)),
      ),
  );
}
