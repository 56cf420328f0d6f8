/**
 * Cancel a running task, from the gallery or its page. Without JavaScript it is a form post to the
 * studio (which redirects back with a notice); with it, a fetcher: the page stays where it is (filters,
 * page, scroll) and the button says "Canceling…" at once; the live updates' toast says "Canceled".
 *
 * A hook, not a component: the button disappears with the running state it belongs to, so what
 * happens after the answer (`onDone`) runs in the caller, which stays.
 */
import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { Button } from "~/components/ui";

export interface CancelResult {
  intent: "cancel";
  canceled: boolean;
}

export function useCancelGeneration({ id, prompt, onDone }: { id: string; prompt: string; onDone?: () => void }) {
  const fetcher = useFetcher<CancelResult>({ key: `cancel-${id}` });
  // The field that asks for an answer instead of a redirect exists only once JavaScript runs.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const told = useRef<CancelResult | null>(null);
  const done = useRef(onDone);
  done.current = onDone;
  useEffect(() => {
    const r = fetcher.data;
    if (fetcher.state !== "idle" || !r || told.current === r) return;
    told.current = r;
    done.current?.();
  }, [fetcher.state, fetcher.data]);
  const busy = fetcher.state !== "idle";
  const button = (
    <fetcher.Form method="post" action="/studio">
      <input type="hidden" name="intent" value="cancel" />
      <input type="hidden" name="gen_id" value={id} />
      {hydrated ? <input type="hidden" name="via" value="fetch" /> : null}
      {/* aria-disabled, not disabled: a disabled button drops the keyboard focus to the page. */}
      <Button
        type="submit"
        variant="secondary"
        size="sm"
        aria-disabled={busy || undefined}
        onClick={(e) => {
          if (busy) e.preventDefault();
        }}
        aria-label={`${busy ? "Canceling" : "Cancel"}: ${prompt}`}
      >
        {busy ? "Canceling…" : "Cancel"}
      </Button>
    </fetcher.Form>
  );
  return { button, busy };
}
