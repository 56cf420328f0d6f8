import type { ReactNode } from "react";
import { cn } from "./cn";

const LABEL = { sm: "text-xs", lg: "text-sm", xl: "text-sm" };
const VALUE = { sm: "text-sm font-medium", lg: "text-2xl font-semibold", xl: "mt-1 text-3xl font-semibold" };

/**
 * A label and its figure (balance, plan, tier…) as a `<dt>`/`<dd>` pair: put them in a `<dl>`.
 * `data-*` attributes go on the value.
 */
export function Stat({
  label,
  value,
  hint,
  size = "lg",
  className,
  ...data
}: { label: ReactNode; value: ReactNode; hint?: ReactNode; size?: keyof typeof VALUE; className?: string } & Record<
  `data-${string}`,
  string
>) {
  return (
    <div className={className}>
      <dt className={cn(LABEL[size], "text-muted-foreground")}>{label}</dt>
      <dd className={cn(VALUE[size], "tabular-nums")} {...data}>
        {value}
      </dd>
      {hint ? <dd className="mt-1 text-xs text-muted-foreground">{hint}</dd> : null}
    </div>
  );
}
