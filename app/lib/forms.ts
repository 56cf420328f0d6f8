/** Zod schemas shared by forms (client constraints) and actions (server parse). */
import { z } from "zod";

export const SignUpSchema = z.object({
  name: z.string().trim().min(1, "Enter your name").max(100, "At most 100 characters"),
  email: z.email("Enter a valid email address").max(254),
  password: z.string().min(8, "At least 8 characters").max(128, "At most 128 characters"),
  ref: z.string().trim().max(32).optional(),
});

export const SignInSchema = z.object({
  email: z.email("Enter a valid email address"),
  password: z.string().min(1, "Enter your password"),
  next: z.string().optional(),
});

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

/** The studio's create form: one offering (`ai_type|provider|model`) and a prompt. */
export const StudioSchema = z.object({
  offering: z.string().min(1, "Choose a model").regex(/^(image|video)\|[^|]+\|[^|]+$/, "Choose a model"),
  prompt: z.string().trim().min(1, "Describe what to create").max(4000, "At most 4000 characters"),
});
