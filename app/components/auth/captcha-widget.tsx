import { useEffect, useRef, useState } from "react";
import type { CaptchaWidgetConfig } from "~/http/captcha.server";

/** The part of Turnstile's and hCaptcha's browser API used here: the two are alike. */
interface WidgetApi {
  render(container: HTMLElement, options: Record<string, unknown>): string | number;
  remove(id: string | number): void;
}

const GLOBAL_OF = { turnstile: "turnstile", hcaptcha: "hcaptcha" } as const;
const loading = new Map<string, Promise<void>>();

/** Loads the provider's script once per page (allowed by the page's CSP only when a captcha is configured). */
function loadScript(src: string): Promise<void> {
  let pending = loading.get(src);
  if (!pending) {
    pending = new Promise<void>((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.async = true;
      script.onload = () => resolve();
      script.onerror = () => {
        loading.delete(src);
        reject(new Error("captcha script failed to load"));
      };
      document.head.appendChild(script);
    });
    loading.set(src, pending);
  }
  return pending;
}

/**
 * The captcha of the sign-up form, rendered into its form after hydration (so React never meets the widget's own
 * nodes): the widget puts its token into a hidden field of the form (`cf-turnstile-response` or
 * `h-captcha-response`), which the form post carries to the server. `attempt` is the form's last answer: a new one
 * draws the widget afresh, since a token counts once.
 */
export function CaptchaWidget({ captcha, attempt }: { captcha: CaptchaWidgetConfig; attempt?: unknown }) {
  const container = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: drawn afresh for each answer of the form (attempt)
  useEffect(() => {
    let widget: { api: WidgetApi; id: string | number } | null = null;
    let cancelled = false;
    loadScript(captcha.script)
      .then(() => {
        const api = (window as unknown as Record<string, WidgetApi | undefined>)[GLOBAL_OF[captcha.provider]];
        if (cancelled || !api || !container.current) return;
        const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
        widget = {
          api,
          id: api.render(container.current, { sitekey: captcha.siteKey, theme: dark ? "dark" : "light" }),
        };
      })
      .catch(() => setFailed(true));
    return () => {
      cancelled = true;
      if (widget) widget.api.remove(widget.id);
    };
  }, [captcha.provider, captcha.siteKey, captcha.script, attempt]);
  return (
    <div>
      <div ref={container} className="min-h-[65px]" data-captcha={captcha.provider} />
      {failed ? (
        <p className="text-sm text-danger-soft-foreground" role="alert">
          The captcha could not be loaded. Check your connection or content blocker, then reload the page.
        </p>
      ) : null}
      <noscript>
        <p className="text-sm text-muted-foreground">
          The captcha needs JavaScript: turn it on to sign up with e-mail.
        </p>
      </noscript>
    </div>
  );
}
