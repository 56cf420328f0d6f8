import { useEffect, useRef } from "react";

/**
 * Right after Generate the new result is below the composer, out of sight (on a phone a whole screen
 * down): bring it into view and put the keyboard on it, where its Cancel button is. Once per task, not
 * on every live re-read of the page.
 */
export function useShowCreated(created: string | null) {
  const shown = useRef<string | null>(null);
  useEffect(() => {
    if (!created || shown.current === created) return;
    shown.current = created;
    const el = document.querySelector<HTMLElement>(`[data-gen-id="${CSS.escape(created)}"]`);
    if (!el) return;
    el.scrollIntoView({
      block: "center",
      behavior: window.matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth",
    });
    el.focus({ preventScroll: true });
  }, [created]);
}
