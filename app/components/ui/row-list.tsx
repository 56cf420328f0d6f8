import type { ReactNode } from "react";
import { cn } from "./cn";

/** A labelled list of records (keys, webhooks…), one `<Row>` each, divided by rules. */
export function RowList({ label, children }: { label: string; children: ReactNode }) {
  return (
    <ul className="divide-y divide-border" aria-label={label}>
      {children}
    </ul>
  );
}

/**
 * One record: its title line (name and badges), detail lines under it, and its actions on the right;
 * the actions move under the text when the row is narrower than `textClassName`'s basis allows.
 * `below` spans the whole row under both (forms and logs that open in place). `data-*` attributes go on the `<li>`.
 */
export function Row({
  title,
  actions,
  textClassName,
  children,
  below,
  ...data
}: { title: ReactNode; actions?: ReactNode; textClassName?: string; children?: ReactNode; below?: ReactNode } & Record<
  `data-${string}`,
  string
>) {
  return (
    <li className="flex flex-wrap items-center gap-x-4 gap-y-2 py-3" {...data}>
      <div className={cn("min-w-0 flex-1", textClassName)}>
        <p className="flex flex-wrap items-center gap-2">{title}</p>
        {children}
      </div>
      {actions}
      {below ? <div className="min-w-0 basis-full">{below}</div> : null}
    </li>
  );
}
