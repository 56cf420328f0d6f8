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

export function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  // Every authenticated request reads its user: prepared once (query building costs ~15× the lookup here).
  return db.one(prepared(db, "users.byId", (d) => d.select().from(user).where(eq(user.id, sql.placeholder("id")))), { id });
}

export async function getUserOrThrow(db: Db, id: string): Promise<UserRow> {
  const u = await findUserById(db, id);
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
export async function setRole(db: Db, email: string, role: Role, now: number): Promise<UserRow> {
  const updated = await db.one(db.update(user).set({ role, updatedAt: new Date(now) }).where(eq(user.email, email.trim().toLowerCase())).returning());
  if (!updated) throw new AppError("USER_NOT_FOUND");
  return updated;
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.one(db.select().from(user).where(eq(user.email, email.trim().toLowerCase())));
}

/** An admin's reference to a user: by email or by uuid. Unknown → `user not found`. */
export async function resolveUserRef(db: Db, ref: { email?: string; user_uuid?: string }): Promise<UserRow> {
  const u = await (ref.user_uuid !== undefined ? findUserById(db, ref.user_uuid) : findUserByEmail(db, ref.email ?? ""));
  if (!u) throw new AppError("USER_NOT_FOUND");
  return u;
}

/** Spec 4.11: switches affiliate status; returns the updated row. */
export async function setAffiliate(db: Db, userId: string, isAffiliate: boolean, now: number): Promise<UserRow> {
  const updated = await db.one(db.update(user).set({ isAffiliate, updatedAt: new Date(now) }).where(eq(user.id, userId)).returning());
  if (!updated) throw new AppError("USER_NOT_FOUND");
  return updated;
}
