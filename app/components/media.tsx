/** Results as media: an image or a playable video that keeps its own shape, and a lightbox over a gallery. */
import { lazy, type ReactNode, Suspense, useState } from "react";
import { cn } from "~/components/ui";
import { isVideoFile, type MediaItem } from "./media-item";

export { fileExtension, isVideoFile, type MediaItem } from "./media-item";

/** The result itself: `<video>` for video files, `<img>` otherwise (at its natural aspect ratio). */
export function ResultMedia({
  url,
  aiType,
  prompt,
  className,
  fit,
  size,
}: {
  url: string;
  aiType: string;
  prompt: string;
  className?: string;
  fit?: boolean;
  /** The size it was asked for (resultSize): reserves its box before it loads. */
  size?: { width: number; height: number };
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
      className={cn(box, "h-auto")}
      width={size?.width}
      height={size?.height}
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
export function useLightbox(items: MediaItem[], actions?: (item: MediaItem, close: () => void) => ReactNode) {
  const [index, setIndex] = useState(-1);
  const close = () => setIndex(-1);
  const element =
    index >= 0 ? (
      <Suspense fallback={null}>
        <Lightbox items={items} index={index} onClose={close} actions={actions && ((m) => actions(m, close))} />
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

function shapeKey(aiType: string, options: Record<string, unknown>): string {
  const raw = options.aspect_ratio ?? options.ratio ?? options.size;
  const m = typeof raw === "string" ? /^(\d+)\s*[:x]\s*(\d+)$/.exec(raw) : null;
  const key = m ? reduced(Number(m[1]), Number(m[2])) : null;
  return key && SHAPES[key] ? key : aiType === "video" ? "16:9" : "1:1";
}

export function shapeClass(aiType: string, options: Record<string, unknown>): string {
  return SHAPES[shapeKey(aiType, options)]!;
}

/**
 * A result's pixel size as its options ask for it ("1792x1024" as given; a ratio on a 1024-pixel long side), for
 * the `width`/`height` of its `<img>`: the browser reserves the box before the file arrives (no layout shift).
 */
export function resultSize(aiType: string, options: Record<string, unknown>): { width: number; height: number } {
  const size = typeof options.size === "string" ? /^(\d+)x(\d+)$/.exec(options.size) : null;
  if (size) return { width: Number(size[1]), height: Number(size[2]) };
  const [w, h] = shapeKey(aiType, options).split(":").map(Number) as [number, number];
  const long = aiType === "video" ? 1280 : 1024;
  return w >= h
    ? { width: long, height: Math.round((long * h) / w) }
    : { width: Math.round((long * w) / h), height: long };
}

/**
 * A tile's share of a justified row: it grows with its aspect ratio from a basis of the row height (`--row`) times
 * that ratio, so every tile of a row ends up the same height. Literal classes (Tailwind only sees whole names).
 */
const TILE_FLEX: Record<string, string> = {
  "1:1": "grow-[100] basis-[var(--row)]",
  "16:9": "grow-[178] basis-[calc(var(--row)*1.78)]",
  "9:16": "grow-[56] basis-[calc(var(--row)*0.56)]",
  "4:3": "grow-[133] basis-[calc(var(--row)*1.33)]",
  "3:4": "grow-[75] basis-[calc(var(--row)*0.75)]",
  "3:2": "grow-[150] basis-[calc(var(--row)*1.5)]",
  "2:3": "grow-[67] basis-[calc(var(--row)*0.67)]",
  "21:9": "grow-[233] basis-[calc(var(--row)*2.33)]",
  "9:21": "grow-[43] basis-[calc(var(--row)*0.43)]",
  "4:5": "grow-[80] basis-[calc(var(--row)*0.8)]",
  "5:4": "grow-[125] basis-[calc(var(--row)*1.25)]",
  "7:4": "grow-[175] basis-[calc(var(--row)*1.75)]",
  "4:7": "grow-[57] basis-[calc(var(--row)*0.57)]",
};

export function tileFlexClass(aiType: string, options: Record<string, unknown>): string {
  return TILE_FLEX[shapeKey(aiType, options)]!;
}
