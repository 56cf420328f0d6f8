/**
 * One result in the grid: the picture or video at its own shape (width and height reserve its box), its prompt
 * on hover, its status only while it is not done. Actions sit behind one button on the tile (shown on hover and
 * focus with a mouse, always on a touch screen; a long-press opens them too).
 */
import { Ban, Sparkles, TriangleAlert } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { useCancelGeneration } from "~/components/cancel-generation";
import { isVideoFile, ResultMedia, tileSizes } from "~/components/media";
import { Badge, cn, plural } from "~/components/ui";
import { isFinished } from "~/domain/generations/status";
import { hideKey } from "./hide-button";
import { usePlaceholder } from "./placeholder";
import { ResultActions } from "./result-actions";
import { TileIcon } from "./tile-icons";
import type { Draft, Task } from "./types";

/** A tile near the left edge (a phone's first column): its menu opens rightwards instead of off the screen. */
function placeMenu(menu: HTMLDetailsElement) {
  const panel = menu.querySelector<HTMLElement>("[data-menu-panel]");
  if (!menu.open || !panel) return;
  delete panel.dataset.flip;
  if (panel.getBoundingClientRect().left < 8) panel.dataset.flip = "right";
}

function ActionsMenu({ task, onReuse, onHide }: { task: Task; onReuse: (d: Draft) => void; onHide: () => void }) {
  const ref = useRef<HTMLDetailsElement>(null);
  const [open, setOpen] = useState(false);
  // A click anywhere else or Escape closes it, as menus do.
  useEffect(() => {
    if (!open) return;
    const close = (e: Event) => {
      if (e instanceof KeyboardEvent ? e.key === "Escape" : !ref.current?.contains(e.target as Node)) {
        if (ref.current) ref.current.open = false;
      }
    };
    // A menu left open while the window narrows (a phone turned, a window resized) is placed again.
    const place = () => ref.current && placeMenu(ref.current);
    document.addEventListener("pointerdown", close);
    document.addEventListener("keydown", close);
    window.addEventListener("resize", place);
    return () => {
      document.removeEventListener("pointerdown", close);
      document.removeEventListener("keydown", close);
      window.removeEventListener("resize", place);
    };
  }, [open]);
  return (
    <details
      ref={ref}
      className="group/menu absolute top-1.5 right-1.5 z-10"
      onToggle={(e) => {
        setOpen(e.currentTarget.open);
        placeMenu(e.currentTarget);
      }}
      data-menu
    >
      <summary
        className="flex size-8 cursor-pointer list-none items-center justify-center rounded-full bg-black/55 text-white backdrop-blur-sm transition hover:bg-black/75 focus-visible:outline-2 focus-visible:outline-ring [&::-webkit-details-marker]:hidden"
        aria-label={`Actions: ${task.prompt}`}
        title="Actions"
      >
        <TileIcon name="more" className="size-4" />
      </summary>
      <div
        className="absolute top-full right-0 mt-1 w-44 rounded-xl border border-border bg-surface-raised p-1 text-foreground shadow-lg data-[flip=right]:right-auto data-[flip=right]:left-0"
        data-menu-panel
      >
        <ResultActions
          task={task}
          onReuse={(d) => {
            if (ref.current) ref.current.open = false;
            onReuse(d);
          }}
          onHide={onHide}
          onClose={() => {
            if (ref.current) ref.current.open = false;
          }}
        />
      </div>
    </details>
  );
}

export function ResultTile({
  t,
  caption,
  highlight,
  onOpen,
  onReuse,
  priority,
}: {
  t: Task;
  /** In the first row: its picture loads at once, first. */
  priority?: boolean;
  /** A line under the tile (a comparison names each result's model). */
  caption?: string;
  highlight: boolean;
  onOpen?: () => void;
  onReuse: (d: Draft) => void;
}) {
  const url = t.urls[0];
  const running = !isFinished(t.status);
  const item = useRef<HTMLLIElement>(null);
  // After a cancel the button is gone: keep the keyboard where it was, on this result.
  const cancel = useCancelGeneration({ id: t.id, prompt: t.prompt, onDone: () => item.current?.focus() });
  // A result that finishes while the keyboard is on its Cancel button takes that button away: keep the keyboard on the result.
  const focusInside = useRef(false);
  const wasRunning = useRef(running);
  useEffect(() => {
    if (
      wasRunning.current &&
      !running &&
      focusInside.current &&
      (!document.activeElement || document.activeElement === document.body)
    )
      item.current?.focus();
    wasRunning.current = running;
  }, [running]);
  // Removed at once (the answer and the re-read follow); the keyboard moves on to the next result.
  const hiding = useFetcher({ key: hideKey(t.id) }).state !== "idle";
  const onHide = () => {
    const li = item.current;
    const next = (li?.nextElementSibling ?? li?.previousElementSibling) as HTMLElement | null;
    (next ?? document.getElementById("history-h"))?.focus();
  };
  const done = t.status === "completed" && url;
  const placeholder = usePlaceholder(t.placeholder);
  return (
    <li
      ref={item}
      tabIndex={-1}
      className={cn(
        "group relative max-w-full min-w-0 rounded-xl focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
        caption ? "min-w-0" : done ? t.tile : "grow-[100] basis-[var(--row)]",
        // Not stretched to the pictures' row height: a failed or canceled task is a short note.
        !done && !running && "self-start",
        highlight && "ring-2 ring-primary ring-offset-2 ring-offset-background",
      )}
      data-gen-id={t.id}
      data-status={t.canceled ? "canceled" : t.status}
      hidden={hiding}
      onFocus={() => (focusInside.current = true)}
      onBlur={(e) => {
        // Leaving for somewhere else; a removed button blurs towards nothing (relatedTarget null) and does not count.
        if (e.relatedTarget && !e.currentTarget.contains(e.relatedTarget)) focusInside.current = false;
      }}
      onContextMenu={(e) => {
        // A long-press on a touch screen opens the actions instead of the browser's image menu.
        if (!window.matchMedia("(hover: none)").matches) return;
        const menu = e.currentTarget.querySelector<HTMLDetailsElement>("details[data-menu]");
        if (!menu) return;
        e.preventDefault();
        menu.open = true;
      }}
      aria-label={`Generation: ${t.prompt}`}
    >
      <div className="relative overflow-hidden rounded-xl bg-muted">
        {done && placeholder && !isVideoFile(url) ? (
          // Under the picture, blurred, until the picture has loaded over it (it is opaque once loaded).
          <img
            src={placeholder}
            alt=""
            aria-hidden="true"
            width={t.size.width}
            height={t.size.height}
            className="absolute inset-0 size-full scale-110 object-cover blur-md"
            data-placeholder
          />
        ) : null}
        {done ? (
          isVideoFile(url) ? (
            <ResultMedia url={url} aiType={t.aiType} prompt={t.prompt} size={t.size} />
          ) : (
            <a
              href={`/studio/${t.id}`}
              onClick={(e) => {
                if (!onOpen || e.metaKey || e.ctrlKey || e.shiftKey) return;
                e.preventDefault();
                onOpen();
              }}
              className="relative block focus-visible:outline-offset-[-4px]"
              aria-label={`View larger: ${t.prompt}`}
            >
              <ResultMedia
                url={url}
                aiType={t.aiType}
                prompt={t.prompt}
                size={t.size}
                renditions={t.renditions[0]}
                // A comparison's row shares the gallery's width among two to four columns.
                sizes={caption ? "(min-width: 640px) 50vw, 100vw" : tileSizes(t.size)}
                priority={priority}
                className={t.placeholder ? "bg-transparent" : undefined}
              />
            </a>
          )
        ) : (
          <div
            className={cn(
              "relative flex w-full flex-col items-center justify-center gap-2 p-3 text-center",
              // A running task holds the box of the result to come; a failed or canceled one is a compact note.
              running ? ["shimmer", t.shape] : "min-h-28",
            )}
          >
            {running ? (
              <>
                <Sparkles aria-hidden="true" className="size-5 animate-pulse text-accent" />
                <p className="text-sm font-medium">{t.status === "pending" ? "Queued…" : "Generating…"}</p>
                <progress
                  className="h-1 w-2/3 overflow-hidden rounded-full [&::-webkit-progress-bar]:bg-border [&::-webkit-progress-value]:bg-primary"
                  aria-label={`Generating (${t.status})`}
                />
                {cancel.button}
              </>
            ) : (
              <>
                {t.canceled ? (
                  <Ban aria-hidden="true" className="size-5 text-muted-foreground" />
                ) : (
                  <TriangleAlert aria-hidden="true" className="size-5 text-muted-foreground" />
                )}
                <p className="text-sm font-medium">{t.canceled ? "Canceled" : "Could not be made"}</p>
                {t.error && !t.canceled ? (
                  <p className="line-clamp-2 text-xs text-danger-soft-foreground" role="note">
                    {t.error}
                  </p>
                ) : null}
                <p className="text-xs text-muted-foreground">No credits were charged.</p>
              </>
            )}
          </div>
        )}
        {t.aiType === "video" && done ? (
          <Badge tone="neutral" className="pointer-events-none absolute top-2 left-2 bg-black/60 text-white">
            <TileIcon name="animate" /> Video
          </Badge>
        ) : null}
        {/* The prompt and its facts: on hover or focus over a finished result, under an unfinished one's state. */}
        <div
          className={cn(
            "pointer-events-none inset-x-0 bottom-0 px-2.5 pt-6 pb-2 text-xs",
            done
              ? "absolute bg-gradient-to-t from-black/75 to-transparent text-white opacity-0 transition group-focus-within:opacity-100 group-hover:opacity-100"
              : "relative pt-0 text-muted-foreground",
          )}
        >
          <p className="truncate font-medium">{t.prompt}</p>
          <p className="flex items-center gap-1.5 truncate opacity-90">
            {done ? null : <Badge status={t.canceled ? "canceled" : t.status} data-testid="status" />}
            <span className="truncate">
              {t.label} · {plural(t.cost, "credit")}
              {t.mode === "simulated" ? " · Simulated" : ""}
            </span>
          </p>
        </div>
      </div>
      {caption ? (
        <p className="mt-1 truncate text-xs font-medium" data-testid="compare-model">
          {caption} <span className="font-normal text-muted-foreground">· {plural(t.cost, "credit")}</span>
        </p>
      ) : null}
      {running && !url ? null : (
        <div className="[@media(hover:hover)]:opacity-0 [@media(hover:hover)]:group-focus-within:opacity-100 [@media(hover:hover)]:group-hover:opacity-100 [@media(hover:hover)]:has-[details[open]]:opacity-100">
          <ActionsMenu task={t} onReuse={onReuse} onHide={onHide} />
        </div>
      )}
    </li>
  );
}
