import type { ReactNode } from "react";
import { cn } from "./cn";
import { EmptyState, TableScroll } from "./page";

/** Table cell classes, one look for every table. */
export const table = {
  root: "w-full text-left text-sm",
  th: "border-b border-border py-2 pr-4 text-xs font-medium tracking-wide whitespace-nowrap text-muted-foreground uppercase",
  td: "border-b border-border/60 py-2.5 pr-4 align-top",
};

/** DataTable cells stay on one line (the table scrolls sideways on a phone instead of breaking e-mails and codes) unless `wrap`. */
const cell = "whitespace-nowrap";

export interface Column<T> {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** Classes for this column's cells (header and body), e.g. "text-right tabular-nums". */
  className?: string;
}

/**
 * A labelled table that scrolls sideways on its own (never the page) and can be scrolled by keyboard;
 * `empty` is shown instead when there are no rows. `wrap` lets long cells (prose) wrap.
 */
export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
  rowClassName,
  empty,
  caption,
  wrap,
  className,
  tableClassName,
  testId,
}: {
  label: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  rowClassName?: (row: T) => string | undefined;
  empty: ReactNode;
  caption?: ReactNode;
  wrap?: boolean;
  className?: string;
  tableClassName?: string;
  testId?: string;
}) {
  if (rows.length === 0) return typeof empty === "string" ? <EmptyState title={empty} /> : empty;
  return (
    <TableScroll label={label} className={className}>
      <table className={cn(table.root, tableClassName)} aria-label={label} data-testid={testId}>
        {caption ? (
          <caption className="py-1 text-left text-xs font-medium text-muted-foreground">{caption}</caption>
        ) : null}
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" className={cn(table.th, c.className)}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={rowKey(r)} className={rowClassName?.(r)}>
              {columns.map((c, i) => (
                <td key={i} className={cn(table.td, !wrap && cell, c.className)}>
                  {c.cell(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
