import type { ReactNode } from "react";
import { Link } from "react-router";
import { buttonVariants } from "./button";
import { cn } from "./cn";

export function PageHeader({
  title,
  description,
  children,
}: {
  title: string;
  description?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <div className="min-w-0">
        <h1 className="text-2xl font-semibold tracking-tight sm:text-3xl">{title}</h1>
        {description ? <p className="mt-1.5 max-w-2xl text-sm text-muted-foreground">{description}</p> : null}
      </div>
      {children}
    </div>
  );
}

export function EmptyState({ title, icon, children }: { title: string; icon?: ReactNode; children?: ReactNode }) {
  return (
    <div className="rounded-card border border-dashed border-border bg-surface px-6 py-12 text-center">
      {icon ? (
        <div className="mx-auto mb-3 flex size-12 items-center justify-center rounded-full bg-accent-soft text-accent-soft-foreground [&_svg]:size-6">
          {icon}
        </div>
      ) : null}
      <p className="font-medium">{title}</p>
      {children ? <div className="mt-2 text-sm text-muted-foreground">{children}</div> : null}
    </div>
  );
}

export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cn("shimmer rounded-xl bg-muted", className)} />;
}

/** Newer / Older links that keep the other query parameters (work without JavaScript). */
export function Pagination({
  label,
  page,
  pages,
  href,
}: {
  label: string;
  page: number;
  pages: number;
  href: (page: number) => string;
}) {
  if (pages <= 1) return null;
  const btn = buttonVariants({ variant: "secondary", size: "sm" });
  return (
    <nav aria-label={label} className="mt-6 flex items-center justify-between gap-2">
      {page > 1 ? (
        <Link to={href(page - 1)} className={btn}>
          Newer
        </Link>
      ) : (
        <span />
      )}
      <span className="text-sm text-muted-foreground">
        Page {page} of {pages}
      </span>
      {page < pages ? (
        <Link to={href(page + 1)} className={btn}>
          Older
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}

/** A horizontally scrollable box that keyboard users can scroll too (focusable, labelled). */
export function TableScroll({
  label,
  className,
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a scrollable table wrapper, not a document section
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable box must take the keyboard to scroll (WCAG 2.1.1, axe scrollable-region-focusable)
    <div className={cn("relative overflow-x-auto", className)} role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
