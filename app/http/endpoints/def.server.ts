/** What a row of the endpoint table holds (app/http/endpoints.server.ts), and the pieces rows share. */
import { z } from "zod";
import type { ErrorCode } from "~/lib/errors";

export type AuthMode = "user" | "admin" | "session" | "optional" | "none";

export interface EndpointDef {
  method: "POST" | "GET";
  /** Also answers this method (health: GET and POST). */
  alsoMethod?: "POST" | "GET";
  tag:
    | "Generation"
    | "Files"
    | "Collections"
    | "Webhooks"
    | "Demo"
    | "Account"
    | "Billing"
    | "API keys"
    | "Admin"
    | "Service"
    | "Sign-in";
  summary: string;
  description: string;
  auth: AuthMode;
  /** Spec section or DESIGN section this endpoint implements. */
  source: string;
  /** The schema the route validates the body with (absent: no body is read). */
  body?: z.ZodType;
  /** The body is `multipart/form-data` (uploads): documented from `docBody`, read by the route itself. */
  multipart?: boolean;
  /**
   * The documented body, when the route validates in domain code for its own
   * messages (generate: spec 4.1 rule order; history: docs/design.md §1 paging).
   */
  docBody?: z.ZodType;
  /** The `data` of a successful envelope, or the raw body when `envelope` is false. */
  response: z.ZodType;
  /** false: not wrapped in the envelope (streams, better-auth, the OpenAPI document). */
  envelope?: boolean;
  /** Content type of a non-envelope success body. */
  contentType?: string;
  /** Envelope `message` of a success (when fixed). */
  successMessage?: string;
  errors: readonly ErrorCode[];
  example?: Record<string, unknown>;
  /** Request headers the endpoint reads besides auth (Idempotency-Key). */
  headers?: readonly { name: string; description: string; maxLength?: number }[];
  /** Exactly one of these body fields must be given (documented as `oneOf`). */
  exactlyOne?: readonly string[];
  /** Other HTTP answers (better-auth's own errors), by status. */
  extraResponses?: Readonly<Record<string, string>>;
  /** Query parameters (GET endpoints). */
  query?: readonly { name: string; description: string; required: boolean }[];
}

export const isoTime = () => z.iso.datetime().describe("ISO 8601 UTC timestamp with milliseconds");

/** The errors of an endpoint that takes a key or a session. */
export const AUTH_ERRORS = [
  "UNAUTHENTICATED",
  "API_KEY_NOT_FOUND",
  "API_KEY_REVOKED",
  "RATE_LIMITED",
  "KEY_SCOPE_MISSING",
  "ACCOUNT_SUSPENDED",
] as const satisfies readonly ErrorCode[];
/** The errors any endpoint can answer. */
export const COMMON = ["METHOD_NOT_ALLOWED", "BUSY", "INTERNAL"] as const satisfies readonly ErrorCode[];

/** The refusals of a session-only endpoint (key management): no session, a key instead, the rate limit. */
export const SESSION_ONLY = [
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "RATE_LIMITED",
  "API_KEY_NOT_FOUND",
  "API_KEY_REVOKED",
] as const satisfies readonly ErrorCode[];
