import { Check, Copy } from "lucide-react";
import { useEffect, useState } from "react";
import { Button, type ButtonVariants } from "./button";

/**
 * Copies `text` to the clipboard. Without JavaScript there is nothing to click,
 * so it renders only after hydration; the text it copies is always on the page too.
 */
export function CopyButton({
  text,
  label = "Copy",
  className,
  variant = "secondary",
  size = "sm",
}: { text: string; label?: string; className?: string } & ButtonVariants) {
  const [ready, setReady] = useState(false);
  const [copied, setCopied] = useState(false);
  useEffect(() => setReady(true), []);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(t);
  }, [copied]);
  if (!ready) return null;
  return (
    <Button
      variant={variant}
      size={size}
      className={className}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
        } catch {
          setCopied(false);
        }
      }}
    >
      {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
      <span aria-live="polite">{copied ? "Copied" : label}</span>
    </Button>
  );
}
