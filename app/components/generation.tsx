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

/**
 * While tasks run, re-read the page data every few seconds (with JavaScript),
 * or reload the page (without: a meta refresh).
 */
export function LiveRefresh({ active, everyMs = 2500 }: { active: boolean; everyMs?: number }) {
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => {
      if (revalidator.state === "idle" && document.visibilityState === "visible") void revalidator.revalidate();
    }, everyMs);
    return () => clearInterval(id);
  }, [active, everyMs, revalidator]);
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
