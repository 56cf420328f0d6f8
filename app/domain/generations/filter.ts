/** The studio gallery's filters, read from its URL. */
import { type AiType, isAiType } from "~/domain/catalog";
import { GENERATION_STATUSES, type GenerationStatus } from "./status";

/** A status to filter by; "running" is every unfinished task, queued (pending) or processing. */
export type StatusFilter = GenerationStatus | "running";
export const UNFINISHED: GenerationStatus[] = ["pending", "processing"];

export interface GenerationFilter {
  aiType?: AiType;
  status?: StatusFilter;
  /** The studio gallery: leave out what the owner removed from it. */
  galleryOnly?: boolean;
}

/** Reads `type` and `status` query parameters; unknown values mean "all". */
export function parseFilter(params: URLSearchParams): GenerationFilter {
  const type = params.get("type");
  const status = params.get("status");
  return {
    aiType: isAiType(type) ? type : undefined,
    status:
      status === "running" || GENERATION_STATUSES.includes(status as GenerationStatus)
        ? (status as StatusFilter)
        : undefined,
  };
}
