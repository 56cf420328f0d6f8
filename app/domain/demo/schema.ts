/** The demo endpoints' body (spec §4.4–4.6), shared by the API routes and the playground form. */
import { z } from "zod";
import { MAX_PROMPT } from "./catalog";

export const DemoRequestSchema = z.object({
  provider: z.string().trim().min(1, "Choose a provider"),
  model: z.string().trim().min(1, "Choose a model"),
  prompt: z.string().trim().min(1, "Enter a prompt").max(MAX_PROMPT, `At most ${MAX_PROMPT} characters`),
});
export type DemoRequest = z.output<typeof DemoRequestSchema>;

/** True when the only problem is an over-long prompt (it has its own message, docs/design.md §1). */
export function onlyPromptTooLong(error: z.ZodError): boolean {
  return error.issues.length > 0 && error.issues.every((i) => i.code === "too_big" && i.path[0] === "prompt");
}
