import { useState } from "react";

/**
 * A button's one async action at a time: `busy` while it runs (the button disables itself), and its failure as a
 * message for the page. An action that ends by navigating away stays busy until the page goes.
 */
export function useBusyAction(action: () => Promise<void>, explain: (error: unknown) => string) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(explain(e));
      setBusy(false);
    }
  };
  return { busy, error, run };
}
