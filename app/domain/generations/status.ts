/** Task statuses (spec 3.1), importable by UI code as well as the server. */
export type GenerationStatus = "pending" | "processing" | "completed" | "failed";
export const GENERATION_STATUSES: readonly GenerationStatus[] = ["pending", "processing", "completed", "failed"];
export const isFinished = (s: string) => s === "completed" || s === "failed";
