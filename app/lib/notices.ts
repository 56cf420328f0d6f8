/**
 * Flash messages that survive a redirect without JavaScript: a page redirects
 * to `…?notice=<key>` and the layout shows the matching text. Only these keys
 * are shown (no text from the URL reaches the page).
 */
export const NOTICES = {
  "signed-out": { kind: "info", text: "You are signed out. See you soon." },
  "account-deleted": {
    kind: "info",
    text: "Your account is deleted and you are signed out. Thank you for using Atelier.",
  },
  "password-reset": {
    kind: "success",
    text: "Your password has been changed. Sign in with the new one. Every other way into the account is gone: its sessions, API keys, webhooks, passkeys, two-factor (authenticator, backup codes, trusted devices) and linked sign-in providers; add back the ones that are yours.",
  },
  "generation-started": {
    kind: "success",
    text: "Generation started. It appears in your gallery and updates by itself.",
  },
  "checkout-success": {
    kind: "success",
    text: "Thank you! Your payment went through: the credits are in your balance as soon as it is confirmed.",
  },
  "generation-canceled": { kind: "info", text: "Generation canceled: nothing was charged." },
  "checkout-canceled": { kind: "info", text: "Checkout canceled: nothing was charged." },
  "picture-unavailable": {
    kind: "error",
    text: "That result cannot be a picture to start from (not a finished image, or no longer stored).",
  },
} as const satisfies Record<string, { kind: "info" | "success" | "error"; text: string }>;

export type NoticeKey = keyof typeof NOTICES;

export function noticeFrom(url: string | URL): (typeof NOTICES)[NoticeKey] | null {
  const key = new URL(url).searchParams.get("notice");
  return key && Object.hasOwn(NOTICES, key) ? NOTICES[key as NoticeKey] : null;
}
