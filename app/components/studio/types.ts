import type { CancelResult } from "~/components/cancel-generation";
import type { Route } from "../../routes/+types/studio";
import type { UploadAnswer } from "./input-picker";

export type Data = Route.ComponentProps["loaderData"];
export type Offering = Data["offerings"][number];
export type Task = Data["tasks"][number];

/** What the composer holds: enough to make the same request again (Reuse, Run again, a restored draft). */
export interface Draft {
  offering: string;
  prompt: string;
  /** `opt_<key>` form values by key, as typed. */
  options: Record<string, string>;
  /** A thumbnail URL for each picture among the options (`image`, `image_end`), where one is known. */
  previews?: Record<string, string>;
}

export type ActionData =
  | {
      intent: "create";
      errors: Record<string, string | undefined>;
      values: Draft;
      shortfall?: { need: number; have: number };
      /** Compare: the models checked (kept when the comparison is refused). */
      compare?: string[];
      /** From the page's script: the task made (the page stays, no navigation). */
      created?: string;
    }
  | { intent: "hide"; hidden: boolean; id: string }
  | UploadAnswer
  | { intent: "use-result"; draft?: Draft; error?: string }
  | { intent: "checkin"; added: boolean; text: string }
  /** Enhance prompt: the rewrite to edit, or why there is none. */
  | { intent: "enhance"; prompt?: string; error?: string }
  | CancelResult;
