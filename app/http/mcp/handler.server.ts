/**
 * The MCP endpoint (docs/mcp.md, docs/decisions/117-stateless-mcp.md): Streamable HTTP in stateless mode, a fresh
 * transport per HTTP request, JSON answers (no SSE). The key is checked before anything MCP runs: no key or a bad one
 * is HTTP 401, a dry rate limit 429, both with a JSON-RPC error body carrying the envelope's message.
 *
 * Building an McpServer with its tools costs several times the work of a tool call, so idle servers are kept in a
 * small pool: each answers one request at a time, and the request it answers (caller, signal) is set on its slot
 * for that request only.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { readJsonBody } from "~/http/api.server";
import type { Caller } from "~/http/identity.server";
import { requireKeyCaller, takeRateUnits } from "~/http/key-gate.server";
import { BASELINE_HEADERS } from "~/http/security-headers.server";
import { getServices } from "~/http/services.server";
import { AppError, isAppError, isDatabaseBusy } from "~/lib/errors";
import { log } from "~/lib/log.server";
import { APP_VERSION } from "~/lib/version";
import { registerTools, type ToolContext } from "./tools.server";

interface Slot {
  server: McpServer;
  ctx: ToolContext | null;
}
const idle: Slot[] = [];
/** Idle servers kept; more concurrent requests build servers that are dropped afterwards. */
const MAX_IDLE = 32;

function takeSlot(): Slot {
  const reused = idle.pop();
  if (reused) return reused;
  const slot: Slot = { server: new McpServer({ name: "atelier", version: APP_VERSION }), ctx: null };
  registerTools(slot.server, () => {
    if (!slot.ctx) throw new Error("MCP tool called outside a request");
    return slot.ctx;
  });
  return slot;
}

export const MCP_ROUTE = "/mcp";

/** HTTP status of a refusal at the gate: auth failures are 401 here (the envelope's UNAUTHENTICATED is 200). */
function gateStatus(error: AppError): number {
  if (error.code === "UNAUTHENTICATED" || error.code === "API_KEY_NOT_FOUND" || error.code === "API_KEY_REVOKED")
    return 401;
  if (error.code === "INVALID_PARAMS") return 400;
  return error.status === 200 ? 400 : error.status;
}

function rpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  // -32001: a server-defined JSON-RPC error (the range -32000..-32099); -32700 for a body that is not JSON.
  const code = status === 400 ? -32700 : -32001;
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { ...BASELINE_HEADERS, ...headers, "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
}

function refusal(error: unknown): Response {
  if (isAppError(error)) {
    const status = gateStatus(error);
    const headers: Record<string, string> = status === 401 ? { "WWW-Authenticate": 'Bearer realm="atelier"' } : {};
    return rpcError(status, error.message, { ...headers, ...error.headers });
  }
  if (isDatabaseBusy(error)) return rpcError(503, new AppError("BUSY").message, { "Retry-After": "1" });
  log.error("unhandled error at /mcp", { error });
  return rpcError(500, new AppError("INTERNAL").message);
}

/** JSON-RPC requests in a body (a message or a batch): each one is a call against the rate limit. */
function requestCount(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  let n = 0;
  for (const m of messages) if (m && typeof m === "object" && "method" in m && "id" in m) n++;
  return n;
}

export async function handleMcp(request: Request): Promise<Response> {
  const services = getServices();
  let caller: Caller;
  let parsedBody: unknown;
  let rateHeaders: Record<string, string>;
  try {
    caller = await requireKeyCaller(request, services);
    if (request.method !== "POST") {
      // Stateless: no server-initiated stream to open (GET) and no session to end (DELETE).
      const refused = new AppError("METHOD_NOT_ALLOWED");
      refused.headers = { Allow: "POST" };
      throw refused;
    }
    parsedBody = await readJsonBody(request);
    rateHeaders = await takeRateUnits(services, caller, MCP_ROUTE, Math.max(1, requestCount(parsedBody)));
  } catch (error) {
    return refusal(error);
  }
  const slot = takeSlot();
  slot.ctx = { services, caller, signal: request.signal };
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  let reusable = false;
  try {
    await slot.server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    for (const [name, value] of Object.entries({ ...BASELINE_HEADERS, ...rateHeaders }))
      if (!response.headers.has(name)) response.headers.set(name, value);
    reusable = true;
    return response;
  } finally {
    slot.ctx = null;
    await slot.server.close().catch(() => {
      reusable = false;
    });
    if (reusable && idle.length < MAX_IDLE) idle.push(slot);
  }
}
