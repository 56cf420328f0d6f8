/**
 * What can be done with a result, the same on its tile and in the lightbox: Reuse (the prompt, model and every
 * option back in the composer), Run again (the same request), Variations (the same with a new seed where the model
 * has one), Download, Open, Copy link, Delete. Run again and Variations post through the composer's fetcher, so a
 * shortfall or an error shows in the composer.
 */
import { Copy, Download, ExternalLink, Repeat, RotateCcw, Shuffle } from "lucide-react";
import { useFetcher } from "react-router";
import { Button, buttonVariants, cn } from "~/components/ui";
import { draftHref } from "./draft";
import { HideButton } from "./hide-button";
import type { ActionData, Draft, Task } from "./types";

export const CREATE_FETCHER = "studio-create";

export const draftOfTask = (t: Pick<Task, "offering" | "prompt" | "options">): Draft => ({
  offering: t.offering,
  prompt: t.prompt,
  options: t.options,
});

function RunForm({ task, variation }: { task: Task; variation: boolean }) {
  const fetcher = useFetcher<ActionData>({ key: CREATE_FETCHER });
  const options = { ...task.options };
  // A new seed where the model takes one; where it does not, each run is already a new draw.
  if (variation) {
    delete options.seed;
    if (task.seedable) options.seed = String(Math.floor(Math.random() * 4_294_967_295));
  }
  const label = variation ? "Variation" : "Run again";
  return (
    <fetcher.Form method="post" action="/studio">
      <input type="hidden" name="intent" value="create" />
      <input type="hidden" name="via" value="fetch" />
      <input type="hidden" name="make" value={task.aiType} />
      <input type="hidden" name="offering" value={task.offering} />
      <input type="hidden" name="prompt" value={task.prompt} />
      {Object.entries(options).map(([k, v]) => (
        <input key={k} type="hidden" name={`opt_${k}`} value={v} />
      ))}
      <Button
        type="submit"
        variant="ghost"
        size="sm"
        className="w-full justify-start"
        aria-label={`${label}: ${task.prompt}`}
        disabled={fetcher.state !== "idle"}
      >
        {variation ? <Shuffle aria-hidden="true" /> : <Repeat aria-hidden="true" />} {label}
      </Button>
    </fetcher.Form>
  );
}

export function ResultActions({
  task,
  onReuse,
  onHide,
  className,
}: {
  task: Task;
  onReuse: (d: Draft) => void;
  onHide?: () => void;
  className?: string;
}) {
  const url = task.urls[0];
  const item = "w-full justify-start";
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
        aria-label={`Reuse: ${task.prompt}`}
      >
        <RotateCcw aria-hidden="true" /> Reuse
      </a>
      <RunForm task={task} variation={false} />
      <RunForm task={task} variation />
      {url ? (
        <a
          href={url}
          download
          className={buttonVariants({ variant: "ghost", size: "sm", className: item })}
          aria-label={`Download: ${task.prompt}`}
        >
          <Download aria-hidden="true" /> Download
        </a>
      ) : null}
      <a
        href={`/studio/${task.id}`}
        className={buttonVariants({ variant: "ghost", size: "sm", className: item })}
        aria-label={`Open: ${task.prompt}`}
      >
        <ExternalLink aria-hidden="true" /> Open
      </a>
      {url ? (
        <Button
          variant="ghost"
          size="sm"
          className={item}
          aria-label={`Copy link: ${task.prompt}`}
          onClick={() => void navigator.clipboard?.writeText(new URL(url, window.location.href).href).catch(() => {})}
        >
          <Copy aria-hidden="true" /> Copy link
        </Button>
      ) : null}
      {task.status === "completed" || task.status === "failed" ? (
        <HideButton task={task} onHide={onHide} className={item} />
      ) : null}
    </div>
  );
}
