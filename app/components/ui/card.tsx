import type { HTMLAttributes, ReactNode } from "react";
import { cn } from "./cn";

export const cardClass = "rounded-card border border-border bg-surface p-5 shadow-xs sm:p-6";

/** A titled section: the heading labels the region for screen readers. */
export function Card({
  title,
  id,
  description,
  actions,
  className,
  children,
  ...rest
}: { title?: ReactNode; id?: string; description?: ReactNode; actions?: ReactNode; children?: ReactNode } & Omit<HTMLAttributes<HTMLElement>, "title">) {
  const headingId = id ? `${id}-h` : undefined;
  return (
    <section className={cn(cardClass, className)} aria-labelledby={title ? headingId : undefined} {...rest}>
      {title ? (
        <div className="mb-4 flex flex-wrap items-start justify-between gap-3">
          <div className="min-w-0">
            <h2 id={headingId} className="text-base font-semibold tracking-tight">
              {title}
            </h2>
            {description ? <p className="mt-1 text-sm text-muted-foreground">{description}</p> : null}
          </div>
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}
