/** better-auth's e-mail sign-up and sign-in, documented in the endpoint table (their answers are better-auth's). */
import { z } from "zod";
import type { EndpointDef } from "./def.server";

export const SIGN_IN_ENDPOINTS = {
  "/api/auth/sign-up/email": {
    method: "POST",
    tag: "Sign-in",
    summary: "Sign up (session cookie)",
    description:
      "better-auth's e-mail sign-up. Answers better-auth's own JSON (not the envelope) and sets the `atelier.session_token` cookie. Send an Origin header equal to PUBLIC_URL.",
    auth: "none",
    source: "docs/design.md §5",
    body: z.object({ name: z.string().min(1), email: z.email(), password: z.string().min(8).max(128) }),
    extraResponses: {
      "400":
        "better-auth rejected the body (e.g. `INVALID_EMAIL`, `PASSWORD_TOO_SHORT`, `PASSWORD_TOO_LONG`): `{code, message}`",
      "403": "`INVALID_ORIGIN`: the Origin header is not PUBLIC_URL or a trusted origin",
      "422": "`USER_ALREADY_EXISTS` (or `FAILED_TO_CREATE_USER`): `{code, message}`",
      "429": "too many sign-up attempts from this address",
    },
    response: z.looseObject({ user: z.looseObject({ id: z.string(), email: z.string(), name: z.string() }) }),
    envelope: false,
    contentType: "application/json",
    errors: [],
    example: { name: "Ada", email: "ada@example.com", password: "correct-horse-battery" },
  },
  "/api/auth/sign-in/email": {
    method: "POST",
    tag: "Sign-in",
    summary: "Sign in (session cookie)",
    description:
      "better-auth's e-mail sign-in; sets the `atelier.session_token` cookie. Send an Origin header equal to PUBLIC_URL.",
    auth: "none",
    source: "docs/design.md §5",
    body: z.object({ email: z.email(), password: z.string().min(1) }),
    extraResponses: {
      "400": "better-auth rejected the body (e.g. `INVALID_EMAIL`): `{code, message}`",
      "401": "`INVALID_EMAIL_OR_PASSWORD`: `{code, message}`",
      "403": "`INVALID_ORIGIN`, or the e-mail is not verified when verification is required",
      "429": "too many failed sign-ins for this account (cooldown) or from this address",
    },
    response: z.looseObject({ user: z.looseObject({ id: z.string(), email: z.string(), name: z.string() }) }),
    envelope: false,
    contentType: "application/json",
    errors: [],
    example: { email: "ada@example.com", password: "correct-horse-battery" },
  },
} as const satisfies Record<string, EndpointDef>;
