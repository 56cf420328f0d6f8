/** Pieces of the studio: result media and live refresh while tasks run. */
import { useEffect } from "react";
import { useRevalidator } from "react-router";

export const isVideoFile = (url: string) => /\.(mp4|webm|mov)(\?|$)/i.test(url);

/** An image (or the simulator's animated GIF) or a playable video. */
export function ResultMedia({ url, aiType, prompt, thumb }: { url: string; aiType: string; prompt: string; thumb?: boolean }) {
  const box = thumb ? "aspect-square w-full rounded-md bg-slate-100 object-cover" : "w-full rounded-md bg-slate-100";
  if (isVideoFile(url)) {
    return <video src={url} controls loop playsInline preload="metadata" className={box} aria-label={`Video: ${prompt}`} />;
  }
  return <img src={url} alt={`${aiType === "video" ? "Video" : "Image"}: ${prompt}`} className={box} loading="lazy" decoding="async" />;
}

/** Status streams a page keeps open at most (HTTP/1.1 allows ~6 connections per origin; leave room for the rest). */
export const MAX_STREAMS = 3;

/**
 * While tasks run, re-read the page data every few seconds (with JavaScript),
 * or reload the page (without: a meta refresh). With `watch`, the page also
 * follows those tasks' status streams (GET /api/generator/stream) and
 * re-reads at once when one changes, so a finished task shows without waiting
 * for the next poll.
 */
export function LiveRefresh({ active, everyMs = 2500, watch = [] }: { active: boolean; everyMs?: number; watch?: { id: string; status: string }[] }) {
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => {
      if (revalidator.state === "idle" && document.visibilityState === "visible") void revalidator.revalidate();
    }, everyMs);
    return () => clearInterval(id);
  }, [active, everyMs, revalidator]);
  const watched = watch
    .slice(0, MAX_STREAMS)
    .map((w) => `${w.id}:${w.status}`)
    .join(",");
  useEffect(() => {
    if (!active || !watched || typeof EventSource === "undefined") return;
    const sources = watched.split(",").map((entry) => {
      const [genId, shown] = entry.split(":");
      const es = new EventSource(`/api/generator/stream?gen_id=${encodeURIComponent(genId!)}`);
      let last = shown;
      es.addEventListener("status", (e) => {
        const { status } = JSON.parse((e as MessageEvent<string>).data) as { status: string };
        // A status other than the one on the page: re-read the page data now.
        if (status !== last) void revalidator.revalidate();
        last = status;
        if (status === "completed" || status === "failed") es.close();
      });
      // Errors (a restart, a proxy) just close it: polling carries on.
      es.onerror = () => es.close();
      return es;
    });
    return () => sources.forEach((es) => es.close());
    // revalidator changes identity on every render; the streams depend only on which tasks are watched.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active, watched]);
  if (!active) return null;
  return (
    <noscript>
      <meta httpEquiv="refresh" content={String(Math.ceil(everyMs / 1000) + 1)} />
    </noscript>
  );
}

export function Progress({ status }: { status: string }) {
  return (
    <div className="mt-3" role="status">
      <progress className="progress w-full" aria-label={`Generating (${status})`} />
      <p className="mt-1 text-xs text-slate-600">{status === "pending" ? "Waiting to start…" : "Generating…"}</p>
    </div>
  );
}
