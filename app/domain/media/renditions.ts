/**
 * Renditions of a result picture (docs/media.md): smaller WebP copies stored beside the original under the same
 * stem (`<gen_id>/0-<random>.png` → `<gen_id>/0-<random>.w512.webp`), recorded per task in
 * `generations.renditions`. This module is shared by the server and the page: it names the files and builds an
 * `<img>`'s `srcset` from what is recorded. The original stays what `result_urls` and downloads give.
 */

/**
 * The widths made, in pixels; a picture narrower than the widest gets one at its own width instead. 384 is a gallery
 * tile at 1×, and a phone's tile at 2× (a 512 one of a detailed picture is twice the bytes; docs/media.md).
 */
export const RENDITION_WIDTHS = [256, 384, 512, 1024] as const;

/** What is recorded about one result file: its own size and the widths of its renditions (none: not made yet). */
export interface RenditionInfo {
  width: number;
  height: number;
  widths: number[];
}

/** The widths a picture `width` pixels wide gets: never wider than itself, always at least one. */
export function renditionWidths(width: number): number[] {
  const widths: number[] = RENDITION_WIDTHS.filter((w) => w < width);
  const widest = RENDITION_WIDTHS[RENDITION_WIDTHS.length - 1]!;
  if (width <= widest && width > 0) widths.push(width);
  return widths;
}

/** The rendition's name from the original's key or URL: the extension becomes `.w<width>.webp` (a query is kept). */
export function renditionPath(original: string, width: number): string {
  const q = original.search(/[?#]/);
  const path = q < 0 ? original : original.slice(0, q);
  const rest = q < 0 ? "" : original.slice(q);
  const slash = path.lastIndexOf("/");
  const dot = path.lastIndexOf(".");
  const stem = dot > slash ? path.slice(0, dot) : path;
  return `${stem}.w${width}.webp${rest}`;
}

const isInfo = (v: unknown): v is RenditionInfo => {
  if (!v || typeof v !== "object") return false;
  const r = v as Record<string, unknown>;
  return (
    Number.isInteger(r.width) &&
    Number.isInteger(r.height) &&
    Array.isArray(r.widths) &&
    r.widths.every((w) => Number.isInteger(w) && w > 0)
  );
};

/** The column's JSON: one entry per result file, in result order; null where a file has none (a video, a failure). */
export function parseRenditions(json: string | null | undefined): (RenditionInfo | null)[] {
  if (!json) return [];
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.map((e) => (isInfo(e) ? e : null)) : [];
  } catch {
    return [];
  }
}

export interface PictureSources {
  src: string;
  srcSet: string;
  width: number;
  height: number;
}

/**
 * The `<img>` attributes of a result file: its renditions when they are made (the widest as `src`), else the
 * original at the size the task asked for (`fallback`) — a rendition that is missing costs bytes, never the picture.
 */
export function pictureSources(
  url: string,
  info: RenditionInfo | null | undefined,
  fallback: { width: number; height: number },
): PictureSources {
  if (!info || info.widths.length === 0) {
    return { src: url, srcSet: `${url} ${fallback.width}w`, width: fallback.width, height: fallback.height };
  }
  const widths = [...info.widths].sort((a, b) => a - b);
  return {
    src: renditionPath(url, widths[widths.length - 1]!),
    srcSet: widths.map((w) => `${renditionPath(url, w)} ${w}w`).join(", "),
    width: info.width,
    height: info.height,
  };
}

/** A thumbnail's source (the admin's lists, previews): the smallest rendition, else the original. */
export function thumbnailUrl(url: string, info: RenditionInfo | null | undefined): string {
  if (!info || info.widths.length === 0) return url;
  return renditionPath(url, Math.min(...info.widths));
}
