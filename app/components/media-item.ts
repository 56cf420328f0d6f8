/** What a result is to the gallery and the lightbox (media.tsx and lightbox.client.tsx both read it). */
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
