/**
 * Baseline for `bun run bench:keys`: a bare `Bun.serve` doing the same database
 * work as POST /api/get-user-info, without React Router or better-auth.
 *   /key      X-API-Key → key lookup (+ last-used check) → user → tier → rate-limit read + guarded insert
 *   /session  session cookie → session row by token → user
 */
import { and, eq, gt } from "drizzle-orm";
import { openDatabase } from "#db/client";
import { session } from "#db/schema";
import { authenticateApiKey } from "~/domain/api-keys/authenticate.server";
import { rateLimitHeaders } from "~/domain/rate-limits/decide";
import { createLimiter } from "~/domain/rate-limits/limiter.server";
import { keyBucket, keyPolicy, keyTier } from "~/domain/rate-limits/policy.server";
import { findUserById, toUserInfo } from "~/domain/users/users.server";
import { envelopeResponse, errorBody, okBody } from "~/lib/envelope";
import { systemClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";

const config = parseConfig(process.env);
const db = openDatabase(config.databasePath, { migrate: false });
const limiter = createLimiter(db, systemClock, { maxWindowMs: config.RATE_LIMIT_WINDOW_MS });

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  fetch(request) {
    const path = new URL(request.url).pathname;
    try {
      if (path === "/key") {
        const id = authenticateApiKey(db, request.headers.get("x-api-key") ?? "", systemClock);
        const user = findUserById(db, id.userId)!;
        const policy = keyPolicy(config, keyTier(db, { userId: user.id, isAdmin: false }, systemClock));
        const d = limiter.check(keyBucket(id.keyId), policy);
        return envelopeResponse(okBody(toUserInfo(user)), { headers: rateLimitHeaders(policy, d) });
      }
      if (path === "/session") {
        const cookie = request.headers.get("cookie") ?? "";
        const raw = decodeURIComponent(/atelier\.session_token=([^;]+)/.exec(cookie)?.[1] ?? "");
        const token = raw.split(".")[0]!;
        const s = db
          .select({ userId: session.userId })
          .from(session)
          .where(and(eq(session.token, token), gt(session.expiresAt, new Date())))
          .get();
        const user = s ? findUserById(db, s.userId) : undefined;
        if (!user) return envelopeResponse(errorBody("no auth, please sign-in"));
        return envelopeResponse(okBody(toUserInfo(user)));
      }
    } catch (e) {
      return envelopeResponse(errorBody(String((e as Error).message)), { status: 401 });
    }
    return new Response("not found", { status: 404 });
  },
});
console.log(`ready ${server.port}`);
