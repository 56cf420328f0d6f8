import type { CancelResult } from "~/components/cancel-generation";
import type { Route } from "../../routes/+types/studio";

export type Data = Route.ComponentProps["loaderData"];
export type Offering = Data["offerings"][number];
export type Task = Data["tasks"][number];

export type ActionData =
  | {
      intent: "create";
      errors: Record<string, string | undefined>;
      values: { offering: string; prompt: string; options: Record<string, string> };
      shortfall?: { need: number; have: number };
    }
  | { intent: "hide"; hidden: boolean; id: string }
  | { intent: "checkin"; added: boolean; text: string }
  | CancelResult;
