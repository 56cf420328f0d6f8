/**
 * What a scoped API key may do (docs/decisions.md "Scoped keys and spending caps"). A key carries a set of scopes
 * (all five by default, today's behaviour); each endpoint a key can reach needs one. A key without it is refused
 * with HTTP 403 before anything is done. Sessions are never scoped.
 */
export const KEY_SCOPES = ["generate", "read", "files", "webhooks", "billing"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export const isKeyScope = (v: unknown): v is KeyScope => typeof v === "string" && KEY_SCOPES.includes(v as KeyScope);

/** What each scope covers, for the keys page and the docs. */
export const SCOPE_DESCRIPTIONS: Record<KeyScope, string> = {
  generate: "create and cancel generation tasks, collections of them, demo calls, feedback",
  read: "read tasks, history, collections, the status stream, profile, credits, subscription and usage",
  files: "upload, list and delete input files (image inputs)",
  webhooks: "create, list, test, change and delete webhook endpoints, their deliveries and resends",
  billing:
    "checkout, the daily check-in, affiliate status; an admin key's credit and subscription grants and suspensions",
};

/** An MCP tool's entry in ROUTE_SCOPES: each tool is an operation of its own under `/mcp`. */
export const mcpToolRoute = (tool: string) => `/mcp#${tool}`;

/**
 * The scope each key-reachable route needs, by its endpoint-table path (or its scopes, all needed, for an operation
 * that does two things); each MCP tool by `/mcp#<tool>` (mcpToolRoute). Routes that are public or session-only (key
 * management, sign-in) need none: a key never reaches them. `/mcp` itself needs none: listing the tools does nothing.
 */
export const ROUTE_SCOPES: Readonly<Record<string, KeyScope | readonly KeyScope[]>> = {
  "/api/generator/generate": "generate",
  // A quote reads a price, like the catalog.
  "/api/generator/quote": "read",
  "/api/generator/cancel": "generate",
  // Collections sort tasks: reading them is read, changing them is generate's (like removing from the gallery).
  "/api/collections/list": "read",
  "/api/collections/items": "read",
  "/api/collections/create": "generate",
  "/api/collections/add": "generate",
  "/api/collections/remove": "generate",
  "/api/collections/rename": "generate",
  "/api/collections/delete": "generate",
  "/api/demo/gen-text": "generate",
  "/api/demo/gen-image": "generate",
  "/api/demo/gen-stream-text": "generate",
  "/api/add-feedback": "generate",
  "/api/generator/query": "read",
  "/api/generator/history": "read",
  "/api/generator/stream": "read",
  "/api/get-user-info": "read",
  "/api/get-user-credits": "read",
  "/api/get-user-subscription": "read",
  "/api/usage": "read",
  "/api/admin/list-users": "read",
  "/api/models": "read",
  "/api/admin/models/list": "read",
  "/api/admin/models/upsert": "billing",
  "/api/files": "files",
  "/api/files/list": "files",
  "/api/files/delete": "files",
  "/api/webhooks/create": "webhooks",
  "/api/webhooks/list": "webhooks",
  "/api/webhooks/delete": "webhooks",
  "/api/webhooks/update": "webhooks",
  "/api/webhooks/rotate-secret": "webhooks",
  "/api/webhooks/deliveries": "webhooks",
  "/api/webhooks/resend": "webhooks",
  "/api/webhooks/test": "webhooks",
  "/api/billing/checkout": "billing",
  // A code adds credits to the balance, like a purchase; making codes is an admin's billing act.
  "/api/redeem": "billing",
  "/api/admin/codes/create": "billing",
  "/api/ping": "billing",
  "/api/update-invite": "billing",
  "/api/admin/grant-credits": "billing",
  "/api/admin/create-subscription": "billing",
  "/api/admin/suspend-user": "billing",
  // The OpenAI-compatible endpoints (docs/openai-compat.md): an edit stores the picture as a file, then generates.
  "/v1/images/generations": "generate",
  "/v1/images/edits": ["generate", "files"],
  // The MCP tools (docs/mcp.md): each as the endpoint it speaks for.
  "/mcp#list_models": "read",
  "/mcp#generate": "generate",
  "/mcp#get_generation": "read",
  "/mcp#list_generations": "read",
  "/mcp#upload_image": "files",
  "/mcp#get_credits": "read",
};

/** The scopes a route needs, all of them (none for a route outside the table). */
export function scopesOf(route: string): readonly KeyScope[] {
  const needed = ROUTE_SCOPES[route];
  return needed === undefined ? [] : typeof needed === "string" ? [needed] : needed;
}

/** Stored as a JSON array; null (every scope) for keys made before scopes existed or with the default. */
export function parseScopes(stored: string | null): readonly KeyScope[] {
  if (stored === null) return KEY_SCOPES;
  try {
    const v = JSON.parse(stored);
    return Array.isArray(v) ? KEY_SCOPES.filter((s) => v.includes(s)) : KEY_SCOPES;
  } catch {
    return [];
  }
}

/** What to store for a set of scopes: null when it is every scope. */
export function storeScopes(scopes: readonly KeyScope[] | undefined): string | null {
  if (scopes === undefined) return null;
  const set = KEY_SCOPES.filter((s) => scopes.includes(s));
  return set.length === KEY_SCOPES.length ? null : JSON.stringify(set);
}

export const CREDIT_PERIODS = ["day", "month"] as const;
export type CreditPeriod = (typeof CREDIT_PERIODS)[number];

/** The start of the UTC day or month `now` falls in (ms). */
export function periodStart(period: CreditPeriod, now: number): number {
  const d = new Date(now);
  return period === "day"
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
