/**
 * Toasts on Radix's primitive (focus, swipe, F8 hotkey, live-region announcements).
 * `useToast()` from anywhere under <Toaster>; `toast({ title, description, action })`.
 * A toast whose action leads to the page the person is on is not shown, and
 * one already shown closes when they get there ("Your video is ready · Open"). One at a time; on a phone one
 * line over the header (docs/studio.md "Quiet notifications").
 */
import * as ToastPrimitive from "@radix-ui/react-toast";
import { X } from "lucide-react";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { useLocation } from "react-router";
import { cn } from "./cn";

export interface ToastInput {
  title: string;
  description?: ReactNode;
  /** A link (to the result) or, where the toast can put something right at once, a button ("Undo"). */
  action?: { label: string; href: string } | { label: string; onClick: () => void };
  tone?: "default" | "success" | "error";
}
interface ToastItem extends ToastInput {
  id: number;
}

const ToastContext = createContext<(t: ToastInput) => void>(() => {});
export const useToast = () => useContext(ToastContext);

let next = 1;

export function Toaster({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<ToastItem[]>([]);
  const toast = useCallback((t: ToastInput) => {
    if (t.action && "href" in t.action && t.action.href === window.location.pathname) return;
    // One at a time: a new one takes the place of the last (toasts stacked over the results hid them).
    setItems([{ ...t, id: next++ }]);
  }, []);
  const { pathname } = useLocation();
  useEffect(() => {
    const here = (x: ToastItem) => Boolean(x.action && "href" in x.action && x.action.href === pathname);
    setItems((xs) => (xs.some(here) ? xs.filter((x) => !here(x)) : xs));
  }, [pathname]);
  const remove = (id: number) => setItems((xs) => xs.filter((x) => x.id !== id));
  const value = useMemo(() => toast, [toast]);
  // Toasts need JavaScript anyway; rendering the viewport only after hydration keeps the server's HTML free
  // of the inline style attributes Radix puts on it (a strict Content-Security-Policy would block them).
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return (
    <ToastContext.Provider value={value}>
      <ToastPrimitive.Provider swipeDirection="right" duration={5000}>
        {children}
        {items.map((t) => (
          <ToastPrimitive.Root
            key={t.id}
            onOpenChange={(open) => (open ? null : remove(t.id))}
            className={cn(
              "pointer-events-auto flex w-full items-start gap-3 rounded-2xl border border-border bg-surface-raised p-4 text-foreground shadow-lg max-sm:items-center max-sm:px-4 max-sm:py-2.5",
              "data-[state=closed]:opacity-0 data-[swipe=move]:translate-x-(--radix-toast-swipe-move-x) data-[swipe=end]:opacity-0",
              t.tone === "error" && "border-danger/50",
            )}
          >
            {/* On a phone one line (title and action), so it fits over the header and leaves the page alone. */}
            <div className="min-w-0 flex-1 max-sm:flex max-sm:items-center max-sm:gap-3">
              <ToastPrimitive.Title className="text-sm font-semibold max-sm:min-w-0 max-sm:flex-1 max-sm:truncate">
                {t.title}
              </ToastPrimitive.Title>
              {t.description ? (
                <ToastPrimitive.Description className="mt-0.5 truncate text-sm text-muted-foreground max-sm:hidden">
                  {t.description}
                </ToastPrimitive.Description>
              ) : null}
              {t.action ? (
                <ToastPrimitive.Action altText={t.action.label} asChild>
                  {"href" in t.action ? (
                    <a href={t.action.href} className="link mt-2 inline-block text-sm max-sm:mt-0 max-sm:shrink-0">
                      {t.action.label}
                    </a>
                  ) : (
                    <button
                      type="button"
                      onClick={t.action.onClick}
                      className="link mt-2 inline-block cursor-pointer text-sm max-sm:mt-0 max-sm:shrink-0"
                    >
                      {t.action.label}
                    </button>
                  )}
                </ToastPrimitive.Action>
              ) : null}
            </div>
            <ToastPrimitive.Close
              aria-label="Dismiss"
              className="rounded-full p-1 text-muted-foreground hover:bg-muted hover:text-foreground"
            >
              <X aria-hidden="true" className="size-4" />
            </ToastPrimitive.Close>
          </ToastPrimitive.Root>
        ))}
        {hydrated ? (
          // A phone's toast sits over the header, never over the composer or the newest results below it.
          <ToastPrimitive.Viewport className="fixed right-0 bottom-0 z-[100] m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 outline-none max-sm:top-0 max-sm:bottom-auto max-sm:max-w-none max-sm:p-2" />
        ) : null}
      </ToastPrimitive.Provider>
    </ToastContext.Provider>
  );
}
