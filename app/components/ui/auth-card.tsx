import type { ReactNode } from "react";
import { cardClass } from "./card";

/** The narrow card of the account pages (sign in/up, verify, reset): title, optional lead, body, footer line. */
export function AuthCard({ title, description, footer, children }: { title: string; description?: ReactNode; footer?: ReactNode; children: ReactNode }) {
  return (
    <div className="mx-auto w-full max-w-md">
      <div className={cardClass}>
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        {description ? <p className="mt-1.5 text-sm text-muted-foreground">{description}</p> : null}
        <div className="mt-6 space-y-4">{children}</div>
        {footer ? <p className="mt-6 border-t border-border pt-4 text-sm text-muted-foreground">{footer}</p> : null}
      </div>
    </div>
  );
}
