/** Shared UI pieces: fields with errors, notices, page headers, badges, empty states, pagination. */
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import { Link } from "react-router";

function describedBy(id: string, error?: string, hint?: string) {
  return [error ? `${id}-error` : null, hint && !error ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
}

function FieldShell({ id, label, error, hint, children }: { id: string; label: string; error?: string; hint?: string; children: ReactNode }) {
  return (
    <div>
      <label htmlFor={id} className="label">
        {label}
      </label>
      {children}
      {hint && !error ? (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function Field({
  label,
  name,
  error,
  hint,
  id: idProp,
  ...props
}: { label: string; name: string; error?: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = idProp ?? `f-${name}`;
  return (
    <FieldShell id={id} label={label} error={error} hint={hint}>
      <input id={id} name={name} className="input mt-1" aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, error, hint)} {...props} />
    </FieldShell>
  );
}

export function TextArea({
  label,
  name,
  error,
  hint,
  ...props
}: { label: string; name: string; error?: string; hint?: string } & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = `f-${name}`;
  return (
    <FieldShell id={id} label={label} error={error} hint={hint}>
      <textarea id={id} name={name} className="input mt-1" aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, error, hint)} {...props} />
    </FieldShell>
  );
}

export function Select({
  label,
  name,
  error,
  hint,
  children,
  id: idProp,
  ...props
}: { label: string; name: string; error?: string; hint?: string; children: ReactNode } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = idProp ?? `f-${name}`;
  return (
    <FieldShell id={id} label={label} error={error} hint={hint}>
      <select id={id} name={name} className="input mt-1" aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, error, hint)} {...props}>
        {children}
      </select>
    </FieldShell>
  );
}

export function Notice({ kind = "info", children }: { kind?: "info" | "error" | "success"; children: ReactNode }) {
  const styles = {
    info: "border-indigo-200 bg-indigo-50 text-indigo-900",
    error: "border-red-200 bg-red-50 text-red-900",
    success: "border-emerald-200 bg-emerald-50 text-emerald-900",
  }[kind];
  return (
    <div role={kind === "error" ? "alert" : "status"} className={`rounded-md border px-4 py-3 text-sm ${styles}`}>
      {children}
    </div>
  );
}

export function PageHeader({ title, description, children }: { title: string; description?: ReactNode; children?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        {description ? <p className="mt-1 text-sm text-slate-600">{description}</p> : null}
      </div>
      {children}
    </div>
  );
}

export const STATUS_STYLE: Record<string, string> = {
  pending: "bg-slate-200 text-slate-800",
  processing: "bg-indigo-100 text-indigo-900",
  completed: "bg-emerald-100 text-emerald-900",
  failed: "bg-red-100 text-red-900",
  active: "bg-emerald-100 text-emerald-900",
  revoked: "bg-slate-200 text-slate-700",
};

export function Badge({ status, children, ...rest }: { status: string; children?: ReactNode } & Record<`data-${string}`, string>) {
  return (
    <span className={`badge ${STATUS_STYLE[status] ?? "bg-slate-200 text-slate-800"}`} {...rest}>
      {children ?? status}
    </span>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-lg border-2 border-dashed border-slate-300 bg-white px-6 py-10 text-center">
      <p className="font-medium text-slate-800">{title}</p>
      {children ? <div className="mt-2 text-sm text-slate-600">{children}</div> : null}
    </div>
  );
}

/** Newer / Older links that keep the other query parameters (work without JavaScript). */
export function Pagination({ label, page, pages, href }: { label: string; page: number; pages: number; href: (page: number) => string }) {
  if (pages <= 1) return null;
  return (
    <nav aria-label={label} className="mt-4 flex items-center justify-between gap-2">
      {page > 1 ? (
        <Link to={href(page - 1)} className="btn-secondary">
          Newer
        </Link>
      ) : (
        <span />
      )}
      <span className="text-sm text-slate-600">
        Page {page} of {pages}
      </span>
      {page < pages ? (
        <Link to={href(page + 1)} className="btn-secondary">
          Older
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}

/** `2026-11-22 10:00 UTC`, the same on server and client. */
export const utcTime = (iso: string | null | undefined, seconds = false) =>
  iso ? `${iso.replace("T", " ").slice(0, seconds ? 19 : 16)} UTC` : "—";

export function duration(fromIso: string | null | undefined, toIso: string | null | undefined): string {
  if (!fromIso || !toIso) return "—";
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  if (!(ms >= 0)) return "—";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A horizontally scrollable table box that keyboard users can scroll too (focusable, labelled). */
export function TableScroll({ label, className = "", children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div className={`relative overflow-x-auto focus-visible:outline-2 focus-visible:outline-indigo-600 ${className}`} tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
