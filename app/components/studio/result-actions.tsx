/**
 * What can be done with a result, the same on its tile and in the lightbox: Reuse (the prompt, model and every
 * option back in the composer), Run again (the same request), Variations (the same with a new seed where the model
 * has one), Edit and Animate (an image result becomes the picture a model starts from), Download, Open, Copy link,
 * Delete. Run again and Variations post through the composer's fetcher, so a shortfall or an error shows in the
 * composer.
 */
import { createContext, useContext, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Form, useFetcher } from "react-router";
import { Button, buttonVariants, cn } from "~/components/ui";
import { draftHref } from "./draft";
import { HideButton } from "./hide-button";
import { inputTarget } from "./inputs";
import { TileIcon } from "./tile-icons";
import type { ActionData, Draft, Offering, Task } from "./types";

export const CREATE_FETCHER = "studio-create";
/** Edit and Animate answer through one fetcher the studio page watches: the draft lands in the composer. */
export const USE_RESULT_FETCHER = "studio-use-result";

/** The models on offer, for the model an Edit or an Animate switches to. */
export const OfferingsContext = createContext<readonly Offering[]>([]);

/**
 * Edit / Animate: the action stores the result as the user's picture and answers a draft with it (with
 * JavaScript), or sends the studio there with the draft in its address (without).
 */
export function UseResultForm({
  task,
  kind,
  to,
  className,
  variant = "ghost",
  onSent,
  navigate = false,
}: {
  task: Pick<Task, "id" | "prompt">;
  kind: "edit" | "animate";
  to: string;
  className?: string;
  variant?: "ghost" | "secondary";
  /** The form is sent (a menu or the lightbox closes: the composer is where it lands). */
  onSent?: () => void;
  /** From another page (the result's own): go to the studio with the draft rather than answer in place. */
  navigate?: boolean;
}) {
  const fetcher = useFetcher<ActionData>({ key: USE_RESULT_FETCHER });
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const { t } = useTranslation("studio");
  const label = kind === "edit" ? t("actions.edit") : t("actions.animate");
  const FormTag = navigate ? Form : fetcher.Form;
  return (
    <FormTag method="post" action="/studio" onSubmit={() => onSent?.()}>
      <input type="hidden" name="intent" value="use-result" />
      {hydrated && !navigate ? <input type="hidden" name="via" value="fetch" /> : null}
      <input type="hidden" name="gen_id" value={task.id} />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="to" value={to} />
      <Button
        type="submit"
        variant={variant}
        size="sm"
        className={className}
        aria-label={t("actions.labelFor", { action: label, prompt: task.prompt })}
        title={kind === "edit" ? t("actions.editTitle") : t("actions.animateTitle")}
        disabled={!navigate && fetcher.state !== "idle"}
      >
        <TileIcon name={kind} /> {label}
      </Button>
    </FormTag>
  );
}

export const draftOfTask = (t: Pick<Task, "offering" | "prompt" | "options" | "inputs">): Draft => ({
  offering: t.offering,
  prompt: t.prompt,
  options: t.options,
  previews: t.inputs,
});

/**
 * Run again and Variation: one form, two buttons. Variation's button adds `variation=1`, and the server then draws
 * a new seed over the posted one (where the model takes one; elsewhere each run is already a new draw), so every
 * click is a new one and the page's markup does not carry a random value.
 */
function RunForm({ task }: { task: Task }) {
  const fetcher = useFetcher<ActionData>({ key: CREATE_FETCHER });
  const busy = fetcher.state !== "idle";
  const { t } = useTranslation("studio");
  const button = (variation: boolean) => {
    const label = variation ? t("actions.variation") : t("actions.runAgain");
    return (
      <Button
        type="submit"
        variant="ghost"
        size="sm"
        className="w-full justify-start"
        aria-label={t("actions.labelFor", { action: label, prompt: task.prompt })}
        disabled={busy}
        {...(variation ? { name: "variation", value: "1" } : {})}
      >
        <TileIcon name={variation ? "variation" : "again"} /> {label}
      </Button>
    );
  };
  return (
    <fetcher.Form method="post" action="/studio">
      <input type="hidden" name="intent" value="create" />
      <input type="hidden" name="via" value="fetch" />
      <input type="hidden" name="make" value={task.aiType} />
      <input type="hidden" name="offering" value={task.offering} />
      <input type="hidden" name="prompt" value={task.prompt} />
      {Object.entries(task.options).map(([k, v]) => (
        <input key={k} type="hidden" name={`opt_${k}`} value={v} />
      ))}
      {button(false)}
      {button(true)}
    </fetcher.Form>
  );
}

export function ResultActions({
  task,
  onReuse,
  onHide,
  onClose,
  className,
}: {
  task: Task;
  onReuse: (d: Draft) => void;
  onHide?: () => void;
  /** Edit or Animate was chosen: whatever holds these actions (a menu, the lightbox) closes. */
  onClose?: () => void;
  className?: string;
}) {
  const url = task.urls[0];
  const item = "w-full justify-start";
  const offerings = useContext(OfferingsContext);
  // Only a finished picture can be a model's input.
  const picture = task.aiType === "image" && task.status === "completed" && Boolean(url);
  const edit = picture ? inputTarget(offerings, "edit", task.offering) : undefined;
  const animate = picture ? inputTarget(offerings, "animate") : undefined;
  const { t } = useTranslation("studio");
  const labelFor = (action: string) => t("actions.labelFor", { action, prompt: task.prompt });
  return (
    <div className={cn("flex flex-col", className)}>
      <a
        href={draftHref(draftOfTask(task))}
        onClick={(e) => {
          if (e.metaKey || e.ctrlKey || e.shiftKey) return;
          e.preventDefault();
          onReuse(draftOfTask(task));
        }}
        className={buttonVariants({ variant: "ghost", size: "sm", className: item })}
        aria-label={labelFor(t("actions.reuse"))}
      >
        <TileIcon name="reuse" /> {t("actions.reuse")}
      </a>
      <RunForm task={task} />
      {edit ? <UseResultForm task={task} kind="edit" to={edit.value} className={item} onSent={onClose} /> : null}
      {animate ? (
        <UseResultForm task={task} kind="animate" to={animate.value} className={item} onSent={onClose} />
      ) : null}
      {url ? (
        <a
          href={url}
          download
          className={buttonVariants({ variant: "ghost", size: "sm", className: item })}
          aria-label={labelFor(t("actions.download"))}
        >
          <TileIcon name="download" /> {t("actions.download")}
        </a>
      ) : null}
      <a
        href={`/studio/${task.id}`}
        className={buttonVariants({ variant: "ghost", size: "sm", className: item })}
        aria-label={labelFor(t("actions.open"))}
      >
        <TileIcon name="open" /> {t("actions.open")}
      </a>
      {url ? (
        <Button
          variant="ghost"
          size="sm"
          className={item}
          aria-label={labelFor(t("actions.copyLink"))}
          onClick={() => void navigator.clipboard?.writeText(new URL(url, window.location.href).href).catch(() => {})}
        >
          <TileIcon name="copy" /> {t("actions.copyLink")}
        </Button>
      ) : null}
      {task.status === "completed" || task.status === "failed" ? (
        <HideButton task={task} onHide={onHide} className={item} />
      ) : null}
    </div>
  );
}
