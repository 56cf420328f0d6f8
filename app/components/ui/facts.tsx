import type { ReactNode } from "react";
import { cn } from "./cn";

const LAYOUT = {
  /** Two columns from `sm` up; on a phone each value under its label. */
  stacked: { dl: "grid-cols-1 gap-x-6 gap-y-1 sm:grid-cols-[10rem_minmax(0,1fr)] sm:gap-y-3", dd: "mb-2 sm:mb-0" },
  /** Two columns at every width (short labels). */
  columns: { dl: "grid-cols-[minmax(0,7rem)_minmax(0,1fr)] gap-x-4 gap-y-2.5", dd: "" },
};

/** Label/value rows (a profile, a generation's details) as one `<dl>` grid; each value carries `data-field={label}`. */
export function Facts({
  items,
  layout = "stacked",
  labelClassName,
}: {
  items: [string, ReactNode][];
  layout?: keyof typeof LAYOUT;
  labelClassName?: string;
}) {
  return (
    <dl className={cn("grid text-sm", LAYOUT[layout].dl)}>
      {items.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className={cn("text-muted-foreground", labelClassName)}>{k}</dt>
          <dd className={cn("min-w-0 break-words", LAYOUT[layout].dd)} data-field={k}>
            {v}
          </dd>
        </div>
      ))}
    </dl>
  );
}
