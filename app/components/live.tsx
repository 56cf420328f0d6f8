/**
 * Live updates while tasks run: each running task's status stream
 * (GET /api/generator/stream, Server-Sent Events) re-reads the page data when
 * it changes, with polling about every second as the fallback (too many tasks,
 * or a stream that fails); a toast says when a result arrives.
 * Without JavaScript, pages offer a Refresh link instead.
 */
import { useEffect, useRef } from "react";
import { useRevalidator } from "react-router";
import { useToast } from "~/components/ui";

export interface LiveTask {
  id: string;
  status: string;
  prompt: string;
  aiType: string;
  /** Finished because its owner canceled it. */
  canceled?: boolean;
}

export const LIVE_POLL_MS = 1000;
/** How long a toast stays (the Toaster's duration): results finishing meanwhile join it. */
const TOAST_MS = 5000;
/** Browsers allow ~6 connections per origin over HTTP/1.1: leave room for the page itself. */
const MAX_STREAMS = 3;
/** With healthy streams, a slow safety re-read still runs. */
const SAFETY_POLL_MS = 5000;

export function useLiveUpdates({ active, finished }: { active: LiveTask[]; finished: LiveTask[] }) {
  const revalidator = useRevalidator();
  const revalidatorRef = useRef(revalidator);
  revalidatorRef.current = revalidator;
  const toast = useToast();
  const seen = useRef<Set<string> | null>(null);
  const told = useRef<{ at: number; tasks: LiveTask[] }>({ at: 0, tasks: [] });
  const activeKey = active.map((t) => t.id).join(",");

  useEffect(() => {
    if (!activeKey) return;
    const ids = activeKey.split(",");
    let last = Date.now();
    const refresh = () => {
      last = Date.now();
      if (revalidatorRef.current.state === "idle") void revalidatorRef.current.revalidate();
    };
    let healthy = typeof EventSource !== "undefined" && ids.length <= MAX_STREAMS;
    const sources = healthy
      ? ids.map((id) => {
          const es = new EventSource(`/api/generator/stream?gen_id=${encodeURIComponent(id)}`);
          let first = true;
          es.addEventListener("status", () => {
            // The first event repeats what the page already shows.
            if (first) first = false;
            else refresh();
          });
          es.onerror = () => {
            // Closed after the final status, or failed: either way, polling takes over.
            es.close();
            healthy = false;
            refresh();
          };
          return es;
        })
      : [];
    const timer = setInterval(() => {
      if (document.visibilityState !== "visible") return;
      if (!healthy || Date.now() - last >= SAFETY_POLL_MS) refresh();
    }, LIVE_POLL_MS);
    return () => {
      clearInterval(timer);
      for (const es of sources) es.close();
    };
  }, [activeKey]);

  // A task seen running that is now finished: tell the person, unless they are looking at it (its tile on screen
  // says so already). Several at once make one toast, and so do several within a toast's life: the one showing
  // becomes "3 results ready" instead of a new toast per result.
  useEffect(() => {
    const before = seen.current;
    seen.current = new Set(active.map((t) => t.id));
    if (!before) return;
    const fresh = finished.filter((t) => before.has(t.id) && !onScreen(t.id));
    if (fresh.length === 0) return;
    const now = Date.now();
    const recent =
      told.current.at > now - TOAST_MS ? told.current.tasks.filter((t) => !fresh.some((f) => f.id === t.id)) : [];
    const news = [...recent, ...fresh];
    told.current = { at: now, tasks: news };
    if (news.length > 1) {
      const ready = news.filter((t) => t.status === "completed").length;
      toast({
        title: ready === news.length ? `${news.length} results ready` : `${news.length} tasks finished`,
        description:
          ready === news.length ? undefined : `${ready} ready, ${news.length - ready} not made (not charged)`,
        action: { label: "Studio", href: "/studio" },
        tone: "success",
      });
      return;
    }
    const t = news[0]!;
    const kind = t.aiType === "video" ? "video" : "image";
    toast(
      t.status === "completed"
        ? {
            title: `Your ${kind} is ready`,
            description: t.prompt,
            action: { label: "Open", href: `/studio/${t.id}` },
            tone: "success",
          }
        : t.canceled
          ? {
              title: "Canceled",
              description: "Nothing was charged.",
              action: { label: "Details", href: `/studio/${t.id}` },
            }
          : {
              title: `The ${kind} could not be made`,
              description: "No credits were charged.",
              action: { label: "Details", href: `/studio/${t.id}` },
              tone: "error",
            },
    );
  }, [active, finished, toast]);
}

/** Its tile (the studio) or its page is in view: the person sees it finish. */
function onScreen(id: string): boolean {
  if (window.location.pathname === `/studio/${id}`) return true;
  const el = document.querySelector(`[data-gen-id="${CSS.escape(id)}"]`);
  if (!el) return false;
  const box = el.getBoundingClientRect();
  return box.bottom > 0 && box.top < window.innerHeight && box.width > 0;
}
