/**
 * Form answers in the page's language: the shared zod schemas and better-auth speak English (the JSON API answers
 * with them as they are); a page's action passes its errors through these with the request's translator.
 * A message without a translation here stays English (docs/languages.md).
 */
import type { TFunction } from "i18next";
import { authErrorMessage } from "~/lib/auth-errors";
import type { FieldErrors } from "./forms";

const FIELD_KEYS: Record<string, string> = {
  "Enter your name": "enterName",
  "At most 100 characters": "max100",
  "One line, without control characters": "oneLine",
  "Enter a valid email address": "email",
  "At least 8 characters": "min8",
  "At most 128 characters": "max128",
  "Enter your password": "enterPassword",
  "This link is incomplete. Ask for a new one.": "linkIncomplete",
  "The two passwords differ": "passwordsDiffer",
};

const AUTH_KEYS: Record<string, string> = {
  USER_ALREADY_EXISTS: "exists",
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "exists",
  INVALID_EMAIL_OR_PASSWORD: "wrongPassword",
  EMAIL_NOT_VERIFIED: "notVerified",
  PASSWORD_TOO_SHORT: "tooShort",
  PASSWORD_TOO_LONG: "tooLong",
  INVALID_TOKEN: "badLink",
  TOKEN_EXPIRED: "badLink",
  DISPOSABLE_EMAIL: "disposable",
};

type Translate = TFunction<"forms">;

export function localizeFieldErrors(errors: FieldErrors, t: TFunction): FieldErrors {
  const out: FieldErrors = {};
  for (const [field, message] of Object.entries(errors)) {
    const key = message ? FIELD_KEYS[message] : undefined;
    out[field] = key ? (t as unknown as (k: string) => string)(`forms:field.${key}`) : message;
  }
  return out;
}

/** authErrorMessage in the page's language where it has a translation. */
export function localizedAuthError(reply: { status?: number; code?: string; message?: string }, t: TFunction): string {
  const tr = t as unknown as (k: string) => string;
  const key = reply.code ? AUTH_KEYS[reply.code] : undefined;
  if (key) return tr(`forms:auth.${key}`);
  if (reply.status === 429 && !reply.code) return tr("forms:auth.tooMany");
  return authErrorMessage(reply);
}

export type { Translate };
