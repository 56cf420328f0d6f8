/**
 * Which limit applies (spec 8.2, docs/design.md §5). Key requests: per user — every
 * key of one user counts in one bucket — by the owner's tier read at request time. Session requests: unlimited, unless the
 * operator opts in to the recommended limits (SESSION_RATE_LIMITS=true).
 */
import type { Db } from "#db/client";
import { isPremium } from "~/domain/subscriptions/subscriptions.server";
import { type Clock, DAY_MS } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import type { Policy } from "./decide";

const HOUR_MS = 3_600_000;

export type Tier = "standard" | "premium" | "admin";

export async function keyTier(db: Db, owner: { userId: string; isAdmin: boolean }, clock: Clock): Promise<Tier> {
  return tierOf(owner.isAdmin, owner.isAdmin || (await isPremium(db, owner.userId, clock)));
}

/** The tier of an admin or a premium (current paid subscription) or any other user. */
export const tierOf = (isAdmin: boolean, premium: boolean): Tier =>
  isAdmin ? "admin" : premium ? "premium" : "standard";

type LimitConfig = Pick<
  Config,
  "RATE_LIMIT_STANDARD" | "RATE_LIMIT_PREMIUM" | "RATE_LIMIT_ADMIN" | "RATE_LIMIT_WINDOW_MS"
>;

export function keyPolicy(config: LimitConfig, tier: Tier): Policy {
  const limit = {
    standard: config.RATE_LIMIT_STANDARD,
    premium: config.RATE_LIMIT_PREMIUM,
    admin: config.RATE_LIMIT_ADMIN,
  }[tier];
  return { name: tier, limit, windowMs: config.RATE_LIMIT_WINDOW_MS };
}

/** One bucket per user for all of the user's keys (a user with 25 keys still gets one limit). */
export const userBucket = (userId: string) => `user:${userId}`;

/** Key creation per user, so creating and revoking keys cannot churn without bound. */
export const keyCreationPolicy = (config: Pick<Config, "KEY_CREATE_LIMIT">): Policy => ({
  name: "key-create",
  limit: config.KEY_CREATE_LIMIT,
  windowMs: HOUR_MS,
});
export const keyCreationBucket = (userId: string) => `key-create:${userId}`;

const MINUTE_MS = 60_000;

/** Uploads per user (docs/api.md "Files"): storing files costs disk and CPU however high the request limit is. */
export const fileUploadPolicy = (config: Pick<Config, "FILE_UPLOAD_LIMIT">): Policy => ({
  name: "file-upload",
  limit: config.FILE_UPLOAD_LIMIT,
  windowMs: MINUTE_MS,
});
export const fileUploadBucket = (userId: string) => `file-upload:${userId}`;

/** The recommended session limits of spec 8.2, per user and endpoint. */
export function sessionPolicy(path: string): Policy {
  const p = path.replace(/\/+$/, "");
  if (p === "/api/ping") return { name: "session-ping", limit: 1, windowMs: DAY_MS };
  if (p === "/api/get-user-info") return { name: "session-user-info", limit: 100, windowMs: HOUR_MS };
  if (p === "/api/generator/generate") return { name: "session-generate", limit: 10, windowMs: MINUTE_MS };
  return { name: "session", limit: 60, windowMs: MINUTE_MS };
}

export const sessionBucket = (userId: string, path: string) => `session:${userId}:${path.replace(/\/+$/, "")}`;

/** The demo endpoints' window (DEMO_RATE_LIMIT calls per client per minute; app/domain/demo/access.server.ts). */
export const DEMO_WINDOW_MS = 60_000;
