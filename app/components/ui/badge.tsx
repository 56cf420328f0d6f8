import { cva, type VariantProps } from "class-variance-authority";
import type { ReactNode } from "react";
import { cn } from "./cn";

export const badgeVariants = cva(
  "inline-flex items-center gap-1 rounded-full px-2.5 py-0.5 text-xs font-semibold whitespace-nowrap [&_svg]:size-3",
  {
    variants: {
      tone: {
        neutral: "bg-muted text-muted-foreground",
        accent: "bg-accent-soft text-accent-soft-foreground",
        success: "bg-success-soft text-success-soft-foreground",
        warning: "bg-warning-soft text-warning-soft-foreground",
        danger: "bg-danger-soft text-danger-soft-foreground",
      },
    },
    defaultVariants: { tone: "neutral" },
  },
);

const STATUS_TONE: Record<string, VariantProps<typeof badgeVariants>["tone"]> = {
  pending: "neutral",
  processing: "accent",
  completed: "success",
  failed: "danger",
  canceled: "neutral",
  active: "success",
  revoked: "neutral",
  live: "success",
  simulated: "warning",
};

/** A status pill (`<Badge status="completed" />`) or any labelled pill (`<Badge tone="accent">New</Badge>`). */
export function Badge({
  status,
  tone,
  className,
  children,
  ...rest
}: {
  status?: string;
  tone?: VariantProps<typeof badgeVariants>["tone"];
  className?: string;
  children?: ReactNode;
} & Record<`data-${string}`, string>) {
  return (
    <span className={cn(badgeVariants({ tone: tone ?? STATUS_TONE[status ?? ""] ?? "neutral" }), className)} {...rest}>
      {children ?? status}
    </span>
  );
}
