import { cva } from "class-variance-authority";
import { CircleAlert, CircleCheck, Info } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "./cn";

const noticeVariants = cva(
  "flex items-start gap-3 rounded-xl px-4 py-3 text-sm [&>svg]:mt-0.5 [&>svg]:size-4 [&>svg]:shrink-0",
  {
    variants: {
      kind: {
        info: "bg-accent-soft text-accent-soft-foreground",
        error: "bg-danger-soft text-danger-soft-foreground",
        success: "bg-success-soft text-success-soft-foreground",
      },
    },
  },
);

const ICON = { info: Info, error: CircleAlert, success: CircleCheck };

export function Notice({
  kind = "info",
  className,
  children,
}: {
  kind?: "info" | "error" | "success";
  className?: string;
  children: ReactNode;
}) {
  const Icon = ICON[kind];
  return (
    <div role={kind === "error" ? "alert" : "status"} className={cn(noticeVariants({ kind }), className)}>
      <Icon aria-hidden="true" />
      <div className="min-w-0 flex-1">{children}</div>
    </div>
  );
}
