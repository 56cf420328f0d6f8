import { useTranslation } from "react-i18next";
import { useFetcher, useSubmit } from "react-router";
import { Button, useToast } from "~/components/ui";
import { TileIcon } from "./tile-icons";
import type { ActionData, Task } from "./types";

export const hideKey = (id: string) => `hide-${id}`;

/**
 * Puts a removed result back from the toast. A submit of the studio page (which stays), not of the card:
 * the card is gone by the time someone presses Undo.
 */
function useUndoHide() {
  const submit = useSubmit();
  return (id: string) =>
    void submit(
      { intent: "unhide", gen_id: id },
      { method: "post", action: "/studio", navigate: false, fetcherKey: `unhide-${id}` },
    );
}

/** Delete from the gallery (its history and credits stay), with Undo in the toast. */
export function HideButton({
  task,
  onHide,
  className,
}: {
  task: Pick<Task, "id" | "prompt">;
  onHide?: () => void;
  className?: string;
}) {
  const fetcher = useFetcher<ActionData>({ key: hideKey(task.id) });
  const toast = useToast();
  const undo = useUndoHide();
  const { t } = useTranslation("studio");
  return (
    <fetcher.Form
      method="post"
      action="/studio"
      onSubmit={() => {
        onHide?.();
        toast({
          title: t("hide.deleted"),
          description: t("hide.unchanged"),
          action: { label: t("hide.undo"), onClick: () => undo(task.id) },
        });
      }}
    >
      <input type="hidden" name="gen_id" value={task.id} />
      <Button
        type="submit"
        name="intent"
        value="hide"
        variant="ghost"
        size="sm"
        className={className}
        aria-label={t("actions.labelFor", { action: t("hide.delete"), prompt: task.prompt })}
      >
        <TileIcon name="delete" /> {t("hide.delete")}
      </Button>
    </fetcher.Form>
  );
}
