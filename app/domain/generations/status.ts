/** Task statuses (spec 3.1), importable by UI code as well as the server. */
export type GenerationStatus = "pending" | "processing" | "completed" | "failed";
export const GENERATION_STATUSES: readonly GenerationStatus[] = ["pending", "processing", "completed", "failed"];
export const isFinished = (s: string) => s === "completed" || s === "failed";
/** The error message of a task its owner canceled (it ends failed, with this message). */
export const CANCELED = "canceled";
/** Whether a finished task ended because its owner canceled it (not because it could not be made). */
export const wasCanceled = (t: { status: string; errorMessage?: string | null }) =>
  t.status === "failed" && t.errorMessage === CANCELED;
