/**
 * The composer's draft in the browser's storage, so a reload or a trip to checkout and back finds the prompt,
 * model and options as they were (docs/studio.md). Only this browser keeps it; nothing is sent anywhere.
 */
import type { Draft } from "./types";

const KEY = "atelier.studio.draft";

export function readDraft(): Draft | null {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? "null") as Draft | null;
    if (!v || typeof v.offering !== "string" || typeof v.prompt !== "string" || typeof v.options !== "object") {
      return null;
    }
    return v;
  } catch {
    return null;
  }
}

/** The composer form as a draft: the chosen model, the prompt and every `opt_*` field. */
export function draftOf(form: HTMLFormElement): Draft {
  const data = new FormData(form);
  const options: Record<string, string> = {};
  for (const [name, value] of data) {
    if (name.startsWith("opt_") && typeof value === "string" && value !== "") options[name.slice(4)] = value;
  }
  return { offering: String(data.get("offering") ?? ""), prompt: String(data.get("prompt") ?? ""), options };
}

export function saveDraft(draft: Draft) {
  try {
    localStorage.setItem(KEY, JSON.stringify(draft));
  } catch {
    // Storage full or refused (private mode): the draft lives as long as the page.
  }
}

/** A link that opens the studio with this draft (Reuse without JavaScript, or in a new tab). */
export function draftHref(d: Draft) {
  const q = new URLSearchParams({ prompt: d.prompt, model: d.offering });
  for (const [k, v] of Object.entries(d.options)) q.set(`opt_${k}`, v);
  return `/studio?${q}#create-h`;
}
