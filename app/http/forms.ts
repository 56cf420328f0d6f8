/** Zod schemas shared by forms (client constraints) and actions (server parse). */
import { z } from "zod";
import { CREDIT_PERIODS, type CreditPeriod, KEY_SCOPES, type KeyScope } from "~/domain/api-keys/scopes";
import { profileProblem } from "~/domain/auth/profile";

// In the browser the pages' CSP forbids eval: zod would probe for it with `Function("")` (a reported violation).
if (typeof document !== "undefined") z.config({ jitless: true });

export const SignUpSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, "Enter your name")
    .max(100, "At most 100 characters")
    .refine((name) => !profileProblem({ name }), "One line, without control characters"),
  email: z.email("Enter a valid email address").max(254),
  password: z.string().min(8, "At least 8 characters").max(128, "At most 128 characters"),
  ref: z.string().trim().max(32).optional(),
});

export const SignInSchema = z.object({
  email: z.email("Enter a valid email address"),
  password: z.string().min(1, "Enter your password"),
  next: z.string().optional(),
});

export const EmailSchema = z.object({ email: z.email("Enter a valid email address").max(254) });

export const ResetPasswordSchema = z
  .object({
    token: z.string().min(1, "This link is incomplete. Ask for a new one."),
    password: z.string().min(8, "At least 8 characters").max(128, "At most 128 characters"),
    confirm: z.string(),
  })
  .refine((v) => v.password === v.confirm, { path: ["confirm"], message: "The two passwords differ" });

export type FieldErrors = Partial<Record<string, string>>;

/** First message per field, for showing next to inputs. */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "form");
    out[key] ??= issue.message;
  }
  return out;
}

/** Creating an API key (the /keys form and POST /api/keys/create). */
export const ApiKeyCreateSchema = z.object({
  name: z.string().trim().min(1, "Enter a name for the key").max(100, "At most 100 characters"),
});

export const ApiKeyRevokeSchema = z.object({
  key_id: z.string().min(1).max(100),
});
/** Spec 2.7 / 4.12 and docs/design.md §1: content 1..5000 characters, rating an integer 1..5. */
export const FEEDBACK_MAX_CHARS = 5000;
export const FEEDBACK_ERRORS = {
  contentRequired: "content is required",
  contentTooLong: `content too long (max ${FEEDBACK_MAX_CHARS})`,
  contentType: "content must be a string",
  rating: "rating must be an integer from 1 to 5",
} as const;

/** Characters as people count them (code points, not UTF-16 units). */
const chars = (s: string) => [...s].length;

export const FeedbackSchema = z.object({
  content: z
    .string({
      error: (issue) =>
        issue.input === undefined || issue.input === null
          ? FEEDBACK_ERRORS.contentRequired
          : FEEDBACK_ERRORS.contentType,
    })
    .refine((s) => s.trim().length > 0, FEEDBACK_ERRORS.contentRequired)
    .refine((s) => chars(s) <= FEEDBACK_MAX_CHARS, FEEDBACK_ERRORS.contentTooLong),
  rating: z
    .number({ error: FEEDBACK_ERRORS.rating })
    .int(FEEDBACK_ERRORS.rating)
    .min(1, FEEDBACK_ERRORS.rating)
    .max(5, FEEDBACK_ERRORS.rating),
});

/** The same rules for the HTML form (whose rating arrives as text), said the way a person would. */
const FEEDBACK_FORM_ERRORS = {
  content: "Tell us what you think — a sentence is enough.",
  tooLong: `Please keep it under ${FEEDBACK_MAX_CHARS} characters.`,
  rating: "Choose a rating from 1 to 5 stars.",
};
export const FeedbackFormSchema = z.object({
  content: z
    .string({ error: FEEDBACK_FORM_ERRORS.content })
    .refine((s) => s.trim().length > 0, FEEDBACK_FORM_ERRORS.content)
    .refine((s) => chars(s) <= FEEDBACK_MAX_CHARS, FEEDBACK_FORM_ERRORS.tooLong),
  rating: z.preprocess(
    (v) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v),
    z
      .number({ error: FEEDBACK_FORM_ERRORS.rating })
      .int(FEEDBACK_FORM_ERRORS.rating)
      .min(1, FEEDBACK_FORM_ERRORS.rating)
      .max(5, FEEDBACK_FORM_ERRORS.rating),
  ),
});

export const AffiliateSchema = z.object({ is_affiliate: z.boolean() });
/** The studio's create form: one offering (`ai_type|provider|model`) and a prompt. */
export const StudioSchema = z.object({
  offering: z
    .string()
    .min(1, "Choose a model")
    .regex(/^(image|video)\|[^|]+\|[^|]+$/, "Choose a model"),
  prompt: z.string().trim().min(1, "Describe what to create").max(4000, "At most 4000 characters"),
});

/** The /keys page's scope boxes and spending-cap fields, as the form sends them. */
export interface KeyLimitsFields {
  scopes: string[];
  capCredits: string;
  capPeriod: string;
}

/**
 * The scopes and cap a /keys form asks for, or its refusals as sentences beside the fields. An empty cap field means
 * no cap (on update: the cap is removed).
 */
export function parseKeyLimits(
  fields: KeyLimitsFields,
):
  | { ok: true; scopes: KeyScope[]; creditLimit: { credits: number; period: CreditPeriod } | null }
  | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const scopes = KEY_SCOPES.filter((s) => fields.scopes.includes(s));
  if (scopes.length === 0) errors.scopes = "Choose at least one scope: a key with none could do nothing.";
  const raw = fields.capCredits.trim();
  const credits = raw === "" ? null : /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
  if (credits !== null && !(Number.isInteger(credits) && credits >= 1 && credits <= 1_000_000_000))
    errors.cap_credits = "The cap must be a whole number of credits from 1 to 1,000,000,000, or empty for no cap.";
  const period = (CREDIT_PERIODS as readonly string[]).includes(fields.capPeriod)
    ? (fields.capPeriod as CreditPeriod)
    : null;
  if (credits !== null && period === null) errors.cap_period = "Choose whether the cap counts per day or per month.";
  if (Object.keys(errors).length) return { ok: false, errors };
  return { ok: true, scopes, creditLimit: credits === null ? null : { credits, period: period! } };
}
