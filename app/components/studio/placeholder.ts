/**
 * A result's blurred placeholder in the browser: the stored ThumbHash (base64, about 32 characters) turned into a
 * tiny PNG data URL once the page runs, so the page's data carries the hash, not the picture. Without JavaScript the
 * tile keeps its plain background.
 */
import { useEffect, useState } from "react";
import { thumbHashToDataURL } from "thumbhash";

const cache = new Map<string, string>();

export function placeholderDataUrl(hash: string): string | undefined {
  let url = cache.get(hash);
  if (url) return url;
  try {
    url = thumbHashToDataURL(Uint8Array.from(atob(hash), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
  cache.set(hash, url);
  return url;
}

export function usePlaceholder(hash: string | null | undefined): string | undefined {
  const [url, setUrl] = useState<string | undefined>(() => (hash ? cache.get(hash) : undefined));
  useEffect(() => setUrl(hash ? placeholderDataUrl(hash) : undefined), [hash]);
  return url;
}
