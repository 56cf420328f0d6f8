import { useEffect, useRef } from "react";

/**
 * Right after Generate the new result is at the top of the results: bring it into view if it is not (a phone, a
 * scrolled page) and put the keyboard on it, where its Cancel button is. Once per task, not on every live re-read
 * of the page; the task may arrive a re-read after the answer, so it waits for it.
 */
export function useShowCreated(created: string | null, tasks: readonly { id: string }[]) {
  const shown = useRef<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: each re-read may bring the task
  useEffect(() => {
    if (!created || shown.current === created) return;
    const el = document.querySelector<HTMLElement>(`[data-gen-id="${CSS.escape(created)}"]`);
    if (!el) return;
    shown.current = created;
    const box = el.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) {
      el.scrollIntoView({
        block: "nearest",
        behavior: window.matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth",
      });
    }
    el.focus({ preventScroll: true });
  }, [created, tasks]);
}
