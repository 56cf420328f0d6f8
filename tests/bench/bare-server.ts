/**
 * Baseline for the HTTP benchmarks (`bun run bench`, `bun run bench:keys`): a
 * bare `Bun.serve` doing the same database work as Atelier's endpoints —
 * parsing the same JSON, the same lookups and writes through the same domain
 * functions — without React Router, better-auth or the shared guard.
 *
 *   auth by key      X-API-Key → key lookup (+ last-used check) → user and tier (one statement) → the limiter (per user, leased as in the guard)
 *   auth by session  session cookie → HMAC signature check → session row by token (prepared) → user
 *
 *   /key, /session                  get-user-info
 *   /credits/key, /credits/session  get-user-credits
 *   /query/key, /query/session      generator/query   {gen_id}
 *   /history/key, /history/session  generator/history {page, page_size}
 *   /generate/key, /generate/session generator/generate (creates a pending task; no runner)
 *
 * and the bare minimum any key read must do (docs/performance.md), the denominator of the
 * "vs minimum" ratios: JSON parse of the body, SHA-256 of the key, the key row
 * by its (unique) hash, the user row by primary key, the envelope — nothing else:
 *
 *   /minimum                         {uuid, email} of the key's owner
 *
 * On SQLite its connection checkpoints the WAL as the server's does (a worker thread, db/checkpointer.ts).
 *
 * With DATABASE_URL (`bun run bench --engine postgres`) the same on PostgreSQL: the domain functions on
 * the engine-aware handle (openPostgres, DATABASE_POOL_MAX connections, as the server), and the plain
 * statements (session lookup, the minimum's key and user rows) as postgres.js prepared statements on
 * that handle's own pool — each the PostgreSQL form of the SQLite statement beside it.
 */

import type { SQLQueryBindings } from "bun:sqlite";
import { createHash, createHmac } from "node:crypto";
import type { Sql } from "postgres";
import { z } from "zod";
import { openDatabase, openPostgres } from "#db/client";
import { authenticateApiKey } from "~/domain/api-keys/authenticate.server";
import { getCredits } from "~/domain/credits/ledger.server";
import { createGeneration } from "~/domain/generations/create.server";
import { historyPageJson, normalizePaging } from "~/domain/generations/history.server";
import { validateGenerateInput } from "~/domain/generations/validate.server";
import { queryGeneration } from "~/domain/generations/views.server";
import { rateLimitHeaders } from "~/domain/rate-limits/decide";
import { leases } from "~/domain/rate-limits/limiter.server";
import { keyPolicy, tierOf, userBucket } from "~/domain/rate-limits/policy.server";
import { findKeyOwner, findUserById, toUserInfo, type UserRow } from "~/domain/users/users.server";
import { systemClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { envelopeResponse, errorBody, okBody, okBodyText } from "~/lib/envelope";
import { isAppError } from "~/lib/errors";

const config = parseConfig(process.env);
const db = config.DATABASE_URL
  ? await openPostgres(config.DATABASE_URL, { migrate: false, poolMax: config.DATABASE_POOL_MAX })
  : openDatabase(config.databasePath, { migrate: false, checkpointer: {} });
/** postgres.js, the pool behind `db` on PostgreSQL (the plain statements below). */
const pg = db.engine === "postgres" ? (db.drizzle as unknown as { $client: Sql }).$client : undefined;
const QuerySchema = z.object({ gen_id: z.string().min(1).max(200) });
const HistorySchema = z.object({ page: z.unknown().optional(), page_size: z.unknown().optional() });
const GenerateSchema = z.record(z.string(), z.unknown());

/** A bun:sqlite prepared statement's `get` (SQLite). */
function prepared<R>(text: string): (...p: SQLQueryBindings[]) => R | null {
  const st = db.sqlite!.prepare<R, SQLQueryBindings[]>(text);
  return (...p) => st.get(...p);
}

async function byKey(request: Request): Promise<{ user: UserRow; headers: Record<string, string> }> {
  const id = await authenticateApiKey(db, request.headers.get("x-api-key") ?? "", systemClock);
  // The owner's row and premium flag in one statement, as Atelier's guard reads them.
  const { user, premium } = (await findKeyOwner(db, id.userId, systemClock.now()))!;
  const policy = keyPolicy(config, tierOf(false, premium));
  const d = await leases(db).take(userBucket(user.id), policy, systemClock.now());
  return { user, headers: rateLimitHeaders(policy, d) };
}

// The floor of the session work: signature check, one prepared lookup, the user row.
type Row<R> = R | null | undefined | Promise<R | undefined>;
const sessionByToken: (token: string, now: number) => Row<{ userId: string }> = pg
  ? async (token, now) =>
      (
        await pg<
          { userId: string }[]
        >`SELECT user_id AS "userId" FROM session WHERE token = ${token} AND expires_at > ${now}`
      )[0]
  : prepared<{ userId: string }>("SELECT user_id AS userId FROM session WHERE token = ? AND expires_at > ?");
async function bySession(request: Request): Promise<{ user: UserRow; headers: Record<string, string> } | null> {
  const cookie = request.headers.get("cookie") ?? "";
  const raw = decodeURIComponent(/atelier\.session_token=([^;]+)/.exec(cookie)?.[1] ?? "");
  const dot = raw.lastIndexOf(".");
  const token = raw.slice(0, dot);
  if (createHmac("sha256", config.authSecret).update(token).digest("base64") !== raw.slice(dot + 1)) return null;
  const s = await sessionByToken(token, Date.now());
  const user = s ? await findUserById(db, s.userId) : undefined;
  return user ? { user, headers: {} } : null;
}

async function json(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  const v = text ? JSON.parse(text) : {};
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error("invalid params");
  return v;
}

class JsonText {
  constructor(readonly text: string) {}
}
type Handler = (user: UserRow, request: Request) => Promise<unknown> | unknown;
const handlers: Record<string, Handler> = {
  "": (user) => toUserInfo(user),
  credits: (user) => db.exec(getCredits(db, user.id, systemClock)),
  query: async (user, request) => queryGeneration(db, user.id, QuerySchema.parse(await json(request)).gen_id),
  // The page comes as JSON text (as Atelier's route gets it): spliced into the envelope.
  history: async (user, request) =>
    new JsonText(await historyPageJson(db, user.id, normalizePaging(HistorySchema.parse(await json(request))))),
  generate: async (user, request) => {
    const input = validateGenerateInput(GenerateSchema.parse(await json(request)));
    const row = await createGeneration(db, { userId: user.id, input, mode: "simulated", config }, systemClock);
    return { gen_id: row.id, status: "pending", message: "generation task created" };
  },
};

// The minimum: plain prepared statements, no domain code ("user" quoted on PostgreSQL, where the word is reserved).
const keyRow: (hash: string) => Row<{ userId: string; status: string }> = pg
  ? async (hash) =>
      (
        await pg<
          { userId: string; status: string }[]
        >`SELECT user_id AS "userId", status FROM api_keys WHERE key_hash = ${hash}`
      )[0]
  : prepared<{ userId: string; status: string }>("SELECT user_id AS userId, status FROM api_keys WHERE key_hash = ?");
const userRow: (id: string) => Row<{ id: string; email: string }> = pg
  ? async (id) => (await pg<{ id: string; email: string }[]>`SELECT id, email FROM "user" WHERE id = ${id}`)[0]
  : prepared<{ id: string; email: string }>("SELECT id, email FROM user WHERE id = ?");
async function minimum(request: Request): Promise<Response> {
  const text = await request.text();
  if (text) JSON.parse(text);
  const hash = createHash("sha256")
    .update(request.headers.get("x-api-key") ?? "", "utf8")
    .digest("hex");
  const k = await keyRow(hash);
  const u = k?.status === "active" ? await userRow(k.userId) : null;
  return envelopeResponse(u ? okBody({ uuid: u.id, email: u.email }) : errorBody("API key not found"));
}

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  async fetch(request) {
    if (request.url.endsWith("/minimum")) return minimum(request);
    const parts = new URL(request.url).pathname.split("/").filter(Boolean);
    const via = parts.at(-1);
    const handler = handlers[parts.length === 2 ? parts[0]! : ""];
    if (!handler || (via !== "key" && via !== "session")) return new Response("not found", { status: 404 });
    try {
      const caller = await (via === "key" ? byKey(request) : bySession(request));
      if (!caller) return envelopeResponse(errorBody("no auth, please sign-in"));
      const data = await handler(caller.user, request);
      return envelopeResponse(data instanceof JsonText ? okBodyText(data.text) : okBody(data), {
        headers: caller.headers,
      });
    } catch (e) {
      const status = isAppError(e) ? e.status : 200;
      return envelopeResponse(errorBody(String((e as Error).message)), { status });
    }
  },
});
console.log(`ready ${server.port}`);
