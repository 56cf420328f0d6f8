import { Ban, Clapperboard, Download, RotateCcw, Sparkles, TriangleAlert } from "lucide-react";
import { useEffect, useRef } from "react";
import { Link, useFetcher } from "react-router";
import { useCancelGeneration } from "~/components/cancel-generation";
import { isVideoFile, ResultMedia } from "~/components/media";
import { Badge, buttonVariants, CopyButton, cn, formatDate, plural } from "~/components/ui";
import { isFinished } from "~/domain/generations/status";
import { HideButton, hideKey } from "./hide-button";
import type { Task } from "./types";

function reuseHref(t: Pick<Task, "prompt" | "offering">) {
  return `/studio?${new URLSearchParams({ prompt: t.prompt, model: t.offering })}#create-h`;
}

export function GalleryItem({ t, highlight, onOpen }: { t: Task; highlight: boolean; onOpen?: () => void }) {
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
  return (
    <li
      ref={item}
      tabIndex={-1}
      className={cn(
        "group relative overflow-hidden rounded-2xl border border-border bg-surface focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
        highlight && "ring-2 ring-primary",
      )}
      data-gen-id={t.id}
      data-status={t.status}
      hidden={hiding}
      onFocus={() => (focusInside.current = true)}
      onBlur={(e) => {
        // Leaving for somewhere else; a removed button blurs towards nothing (relatedTarget null) and does not count.
        if (e.relatedTarget && !e.currentTarget.contains(e.relatedTarget)) focusInside.current = false;
      }}
      aria-label={`Generation: ${t.prompt}`}
    >
      {t.status === "completed" && url ? (
        <div className="relative">
          {isVideoFile(url) ? (
            <ResultMedia url={url} aiType={t.aiType} prompt={t.prompt} />
          ) : (
            <a
              href={`/studio/${t.id}`}
              onClick={(e) => {
                if (!onOpen || e.metaKey || e.ctrlKey || e.shiftKey) return;
                e.preventDefault();
                onOpen();
              }}
              className="block focus-visible:outline-offset-[-4px]"
              aria-label={`View larger: ${t.prompt}`}
            >
              <ResultMedia url={url} aiType={t.aiType} prompt={t.prompt} />
            </a>
          )}
          {t.aiType === "video" ? (
            <Badge tone="neutral" className="pointer-events-none absolute top-2 left-2 bg-black/60 text-white">
              <Clapperboard aria-hidden="true" /> Video
            </Badge>
          ) : null}
          {/* Actions: on hover or focus with a mouse, always on touch screens. */}
          <div className="absolute top-2 right-2 flex gap-1.5 opacity-100 transition group-focus-within:opacity-100 [@media(hover:hover)]:opacity-0 [@media(hover:hover)]:group-hover:opacity-100">
            <a
              href={url}
              download
              className={buttonVariants({ variant: "secondary", size: "icon-sm" })}
              aria-label={`Download: ${t.prompt}`}
              title="Download"
            >
              <Download aria-hidden="true" />
            </a>
            <HideButton task={t} onHide={onHide} />
          </div>
        </div>
      ) : (
        <div
          className={cn(
            "relative flex w-full flex-col items-center justify-center gap-3 bg-muted p-4 text-center",
            t.shape,
            running && "shimmer",
          )}
        >
          {running ? (
            <>
              <Sparkles aria-hidden="true" className="size-6 animate-pulse text-accent" />
              <p className="text-sm font-medium">{t.status === "pending" ? "Queued…" : "Generating…"}</p>
              <progress
                className="h-1.5 w-2/3 overflow-hidden rounded-full [&::-webkit-progress-bar]:bg-border [&::-webkit-progress-value]:bg-primary"
                aria-label={`Generating (${t.status})`}
              />
              {cancel.button}
            </>
          ) : (
            <>
              {t.canceled ? (
                <Ban aria-hidden="true" className="size-6 text-muted-foreground" />
              ) : (
                <TriangleAlert aria-hidden="true" className="size-6 text-muted-foreground" />
              )}
              <p className="text-sm font-medium">{t.canceled ? "Canceled" : "Could not be made"}</p>
              <p className="text-xs text-muted-foreground">No credits were charged.</p>
            </>
          )}
        </div>
      )}
      <div className="space-y-2 p-3">
        <p className="line-clamp-2 text-sm break-words">
          <Link to={`/studio/${t.id}`} className="hover:underline" aria-label={`Details: ${t.prompt}`}>
            {t.prompt}
          </Link>
        </p>
        {t.status === "failed" && t.error && !t.canceled ? (
          <p className="line-clamp-2 text-xs text-danger-soft-foreground" role="note">
            {t.error}
          </p>
        ) : null}
        <div className="flex flex-wrap items-center gap-1.5 text-xs text-muted-foreground">
          <Badge status={t.canceled ? "canceled" : t.status} data-testid="status" />
          {t.mode === "simulated" ? <Badge status="simulated">Simulated</Badge> : null}
          <span className="truncate">
            {t.label} · {plural(t.cost, "credit")}
          </span>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-1">
          <time className="text-xs text-muted-foreground" dateTime={t.createdAt}>
            {formatDate(t.createdAt)}
          </time>
          <span className="flex gap-1">
            <Link
              to={reuseHref(t)}
              className={buttonVariants({ variant: "ghost", size: "sm" })}
              aria-label={`Reuse prompt: ${t.prompt}`}
            >
              <RotateCcw aria-hidden="true" /> Reuse
            </Link>
            {url ? <CopyButton text={url} label="Link" variant="ghost" size="sm" /> : null}
          </span>
        </div>
      </div>
    </li>
  );
}
