/** The user profile of spec 2.1 and who is an admin. */
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { user } from "#db/schema";
import { premiumExistsSql } from "~/domain/subscriptions/subscriptions.server";
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

// Every authenticated request reads its user: one plain statement (drizzle's prepared select and row mapping cost
// about twice the lookup here, docs/performance.md) mapped as drizzle maps the row — times in milliseconds →
// Date, 0/1 → boolean (both engines store them so: db/schema.pg.ts).
const USER_COLUMNS = `"user".id, "user".name, "user".email, "user".email_verified, "user".image, "user".created_at, "user".updated_at, "user".invite_code, "user".invited_by, "user".is_affiliate, "user".role, "user".suspended_at, "user".suspended_reason, "user".deleted_at, "user".two_factor_enabled, "user".language`;
const USER_BY_ID = `SELECT ${USER_COLUMNS} FROM "user" WHERE "user".id = ?`;
const KEY_OWNER_BY_ID = `SELECT ${USER_COLUMNS}, ${premiumExistsSql(`"user".id`)} AS premium FROM "user" WHERE "user".id = ?`;

interface RawUser {
  id: string;
  name: string;
  email: string;
  email_verified: number | boolean;
  image: string | null;
  created_at: number | string;
  updated_at: number | string;
  invite_code: string;
  invited_by: string | null;
  is_affiliate: number | boolean;
  role: string;
  suspended_at: number | string | null;
  suspended_reason: string | null;
  deleted_at: number | string | null;
  two_factor_enabled: number | boolean;
  language: string | null;
}

const msOrNull = (v: number | string | null) => (v === null ? null : new Date(Number(v)));

const toUserRow = (r: RawUser): UserRow => ({
  id: r.id,
  name: r.name,
  email: r.email,
  emailVerified: Number(r.email_verified) === 1,
  image: r.image,
  createdAt: new Date(Number(r.created_at)),
  updatedAt: new Date(Number(r.updated_at)),
  inviteCode: r.invite_code,
  invitedBy: r.invited_by,
  isAffiliate: Number(r.is_affiliate) === 1,
  role: r.role,
  suspendedAt: msOrNull(r.suspended_at),
  suspendedReason: r.suspended_reason,
  deletedAt: msOrNull(r.deleted_at),
  twoFactorEnabled: Number(r.two_factor_enabled) === 1,
  language: r.language,
});

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  const r = await db.raw<RawUser>(USER_BY_ID).one(id);
  return r && toUserRow(r);
}

/**
 * The owner of an API key and whether the owner is premium now (a current paid subscription: the tier of the key
 * limits), in one statement: the user row every request reads carries the tier, so the tier is read at request
 * time — a user who just became premium, through any process, gets the premium limit at once — without a
 * statement of its own.
 */
export async function findKeyOwner(
  db: Db,
  id: string,
  now: number,
): Promise<{ user: UserRow; premium: boolean } | undefined> {
  const r = await db.raw<RawUser & { premium: number | boolean }>(KEY_OWNER_BY_ID).one(now, id);
  return r && { user: toUserRow(r), premium: Number(r.premium) === 1 };
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
 * Admin rights need proof (docs/design.md §5): an operator promoted the account, or its
 * address is in ADMIN_EMAILS and the account has verified it. Whoever signs up
 * first with an admin address proves nothing.
 */
export function isAdmin(
  config: Pick<Config, "ADMIN_EMAILS">,
  u: Pick<UserRow, "role" | "email" | "emailVerified">,
): boolean {
  return u.role === "admin" || (u.emailVerified && isAdminEmail(config, u.email));
}

export type Role = "admin" | "user";

/** The stored role (`atelier admin promote|demote`). Unknown e-mail → `user not found`. */
export async function setRole(db: Db, email: string, role: Role, now: number): Promise<UserRow> {
  const updated = await db.one(
    db
      .update(user)
      .set({ role, updatedAt: new Date(now) })
      .where(eq(user.email, email.trim().toLowerCase()))
      .returning(),
  );
  if (!updated) throw new AppError("USER_NOT_FOUND");
  return updated;
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.one(db.select().from(user).where(eq(user.email, email.trim().toLowerCase())));
}

/** An admin's reference to a user: by email or by uuid. Unknown → `user not found`. */
export async function resolveUserRef(db: Db, ref: { email?: string; user_uuid?: string }): Promise<UserRow> {
  const u = await (ref.user_uuid !== undefined
    ? findUserById(db, ref.user_uuid)
    : findUserByEmail(db, ref.email ?? ""));
  if (!u) throw new AppError("USER_NOT_FOUND");
  return u;
}

/** Spec 4.11: switches affiliate status; returns the updated row. */
export async function setAffiliate(db: Db, userId: string, isAffiliate: boolean, now: number): Promise<UserRow> {
  const updated = await db.one(
    db
      .update(user)
      .set({ isAffiliate, updatedAt: new Date(now) })
      .where(eq(user.id, userId))
      .returning(),
  );
  if (!updated) throw new AppError("USER_NOT_FOUND");
  return updated;
}
