import type { HTMLAttributes, ReactNode } from "react";
import { cn } from "./cn";

export const cardClass = "rounded-card border border-border bg-surface p-5 shadow-xs sm:p-6";

const TITLE_SIZE = { md: "text-base", lg: "text-xl" };

/**
 * A titled section: the heading (id `${id}-h`) labels the region for screen readers.
 * `anchor` also puts `id` on the section itself, as a link target (`/docs#basics`);
 * `level` 3 nests it under another section's h2.
 */
export function Card({
  title,
  id,
  description,
  actions,
  anchor,
  level = 2,
  size = "md",
  className,
  children,
  ...rest
}: {
  title?: ReactNode;
  id?: string;
  description?: ReactNode;
  actions?: ReactNode;
  anchor?: boolean;
  level?: 2 | 3;
  size?: keyof typeof TITLE_SIZE;
  children?: ReactNode;
} & Omit<HTMLAttributes<HTMLElement>, "title">) {
  const headingId = id ? `${id}-h` : undefined;
  const Heading = level === 3 ? "h3" : "h2";
  return (
    <section
      id={anchor ? id : undefined}
      className={cn(cardClass, anchor && "scroll-mt-20", className)}
      aria-labelledby={title ? headingId : undefined}
      {...rest}
    >
      {title ? (
        <div className="mb-4 flex flex-wrap items-start justify-between gap-3">
          <div className="min-w-0">
            <Heading id={headingId} className={cn(TITLE_SIZE[size], "font-semibold tracking-tight")}>
              {title}
            </Heading>
            {description ? <p className="mt-1 text-sm text-muted-foreground">{description}</p> : null}
          </div>
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}
