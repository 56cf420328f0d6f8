/** The user profile of spec 2.1 and who is an admin. */
import { eq, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { prepared } from "#db/prepared";
import { user } from "#db/schema";
import { iso } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";

export type UserRow = typeof user.$inferSelect;

export interface UserInfo {
  uuid: string;
  email: string;
  nickname: string;
  avatar_url: string;
  invite_code: string;
  invited_by: string;
  is_affiliate: boolean;
  created_at: string;
}

/** Spec 2.1. Absent optional values are empty strings so every field keeps its type. */
export function toUserInfo(u: UserRow): UserInfo {
  return {
    uuid: u.id,
    email: u.email,
    nickname: u.name,
    avatar_url: u.image ?? "",
    invite_code: u.inviteCode,
    invited_by: u.invitedBy ?? "",
    is_affiliate: u.isAffiliate,
    created_at: iso(u.createdAt)!,
  };
}

export function findUserById(db: Db, id: string): UserRow | undefined {
  // Every authenticated request reads its user: prepared once (query building costs ~15× the lookup here).
  return prepared(db, "users.byId", (d) => d.select().from(user).where(eq(user.id, sql.placeholder("id"))).prepare()).get({ id });
}

export function getUserOrThrow(db: Db, id: string): UserRow {
  const u = findUserById(db, id);
  if (!u) throw new AppError("USER_NOT_FOUND");
  return u;
}

export function isAdminEmail(config: Pick<Config, "ADMIN_EMAILS">, email: string): boolean {
  return config.ADMIN_EMAILS.includes(email.trim().toLowerCase());
}

/**
 * Admin rights need proof (DESIGN §5): an operator promoted the account, or its
 * address is in ADMIN_EMAILS and the account has verified it. Whoever signs up
 * first with an admin address proves nothing.
 */
export function isAdmin(config: Pick<Config, "ADMIN_EMAILS">, u: Pick<UserRow, "role" | "email" | "emailVerified">): boolean {
  return u.role === "admin" || (u.emailVerified && isAdminEmail(config, u.email));
}

export type Role = "admin" | "user";

/** The stored role (`atelier admin promote|demote`). Unknown e-mail → `user not found`. */
export function setRole(db: Db, email: string, role: Role, now: number): UserRow {
  const updated = db
    .update(user)
    .set({ role, updatedAt: new Date(now) })
    .where(eq(user.email, email.trim().toLowerCase()))
    .returning()
    .get();
  if (!updated) throw new AppError("USER_NOT_FOUND");
  return updated;
}

export function findUserByEmail(db: Pick<Db, "select">, email: string): UserRow | undefined {
  return db.select().from(user).where(eq(user.email, email.trim().toLowerCase())).get();
}

/** An admin's reference to a user: by email or by uuid. Unknown → `user not found`. */
export function resolveUserRef(db: Db, ref: { email?: string; user_uuid?: string }): UserRow {
  const u = ref.user_uuid !== undefined ? findUserById(db, ref.user_uuid) : findUserByEmail(db, ref.email ?? "");
  if (!u) throw new AppError("USER_NOT_FOUND");
  return u;
}

/** Spec 4.11: switches affiliate status; returns the updated row. */
export function setAffiliate(db: Db, userId: string, isAffiliate: boolean, now: number): UserRow {
  const updated = db
    .update(user)
    .set({ isAffiliate, updatedAt: new Date(now) })
    .where(eq(user.id, userId))
    .returning()
    .get();
  if (!updated) throw new AppError("USER_NOT_FOUND");
  return updated;
}
