/** Results as media: an image or a playable video that keeps its own shape, and a lightbox over a gallery. */
import { lazy, Suspense, useState } from "react";
import { cn } from "~/components/ui";

export const isVideoFile = (url: string) => /\.(mp4|webm|mov|m4v)(\?|#|$)/i.test(url);
export const fileExtension = (url: string) =>
  url
    .slice(url.lastIndexOf(".") + 1)
    .split(/[?#]/)[0]!
    .toLowerCase();

export interface MediaItem {
  id: string;
  url: string;
  aiType: string;
  prompt: string;
}

/** The result itself: `<video>` for video files, `<img>` otherwise (at its natural aspect ratio). */
export function ResultMedia({
  url,
  aiType,
  prompt,
  className,
  fit,
}: {
  url: string;
  aiType: string;
  prompt: string;
  className?: string;
  fit?: boolean;
}) {
  const box = cn("block w-full bg-muted", fit && "max-h-[75vh] object-contain", className);
  if (isVideoFile(url)) {
    return (
      <video
        src={url}
        controls
        loop
        muted
        playsInline
        preload="metadata"
        className={box}
        aria-label={`Video: ${prompt}`}
      />
    );
  }
  return (
    <img
      src={url}
      alt={`${aiType === "video" ? "Video" : "Image"}: ${prompt}`}
      className={box}
      loading="lazy"
      decoding="async"
    />
  );
}

const Lightbox = lazy(() => import("./lightbox.client"));

/**
 * A lightbox over `items` (arrow keys, Escape, swipe; videos play inside).
 * `open(i)` shows item i; the lightbox code loads the first time it is needed.
 */
export function useLightbox(items: MediaItem[]) {
  const [index, setIndex] = useState(-1);
  const element =
    index >= 0 ? (
      <Suspense fallback={null}>
        <Lightbox items={items} index={index} onClose={() => setIndex(-1)} />
      </Suspense>
    ) : null;
  return { open: setIndex, element };
}

/**
 * The box of a result that is not there yet, in the shape it will have: from the
 * options' aspect ratio ("16:9"), ratio ("1280:720") or size ("1792x1024").
 * Classes, not inline styles, so a strict Content-Security-Policy has nothing to block.
 */
const SHAPES: Record<string, string> = {
  "1:1": "aspect-square",
  "16:9": "aspect-video",
  "9:16": "aspect-[9/16]",
  "4:3": "aspect-[4/3]",
  "3:4": "aspect-[3/4]",
  "3:2": "aspect-[3/2]",
  "2:3": "aspect-[2/3]",
  "21:9": "aspect-[21/9]",
  "9:21": "aspect-[9/21]",
  "4:5": "aspect-[4/5]",
  "5:4": "aspect-[5/4]",
  "7:4": "aspect-[7/4]",
  "4:7": "aspect-[4/7]",
};

function reduced(w: number, h: number): string {
  const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
  const g = gcd(w, h) || 1;
  return `${w / g}:${h / g}`;
}

export function shapeClass(aiType: string, options: Record<string, unknown>): string {
  const raw = options.aspect_ratio ?? options.ratio ?? options.size;
  const m = typeof raw === "string" ? /^(\d+)\s*[:x]\s*(\d+)$/.exec(raw) : null;
  const key = m ? reduced(Number(m[1]), Number(m[2])) : null;
  return (key && SHAPES[key]) || (aiType === "video" ? "aspect-video" : "aspect-square");
}
