import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import { cn } from "./cn";

export const inputClass =
  "block w-full rounded-xl border border-input bg-surface px-3.5 py-2.5 text-sm text-foreground shadow-xs placeholder:text-muted-foreground focus-visible:border-ring focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-ring aria-[invalid=true]:border-danger";
export const labelClass = "block text-sm font-medium text-foreground";

function describedBy(id: string, error?: string, hint?: string) {
  return [error ? `${id}-error` : null, hint && !error ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
}

export function FieldError({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p id={id} className="mt-1.5 text-sm text-danger-soft-foreground" role="alert">
      {children}
    </p>
  );
}

export function Hint({ id, children, className }: { id?: string; children: ReactNode; className?: string }) {
  return (
    <p id={id} className={cn("mt-1.5 text-sm text-muted-foreground", className)}>
      {children}
    </p>
  );
}

function FieldShell({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      {children}
      {hint && !error ? <Hint id={`${id}-hint`}>{hint}</Hint> : null}
      {error ? <FieldError id={`${id}-error`}>{error}</FieldError> : null}
    </div>
  );
}

type Extra = { label: string; name: string; error?: string; hint?: string };

export function Field({
  label,
  name,
  error,
  hint,
  id: idProp,
  className,
  ...props
}: Extra & InputHTMLAttributes<HTMLInputElement>) {
  const id = idProp ?? `f-${name}`;
  return (
    <FieldShell id={id} label={label} error={error} hint={hint}>
      <input
        id={id}
        name={name}
        className={cn(inputClass, "mt-1.5", className)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        {...props}
      />
    </FieldShell>
  );
}

export function TextArea({
  label,
  name,
  error,
  hint,
  id: idProp,
  className,
  ...props
}: Extra & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = idProp ?? `f-${name}`;
  return (
    <FieldShell id={id} label={label} error={error} hint={hint}>
      <textarea
        id={id}
        name={name}
        className={cn(inputClass, "mt-1.5", className)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        {...props}
      />
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
  className,
  ...props
}: Extra & { children: ReactNode } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = idProp ?? `f-${name}`;
  return (
    <FieldShell id={id} label={label} error={error} hint={hint}>
      <select
        id={id}
        name={name}
        className={cn(inputClass, "mt-1.5", className)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        {...props}
      >
        {children}
      </select>
    </FieldShell>
  );
}

/**
 * A radio or checkbox that covers its whole styled label (a card, a pill): the
 * real input takes the clicks and the focus, and stays invisible.
 */
export const coverInput =
  "absolute inset-0 z-10 m-0 size-full cursor-pointer appearance-none rounded-[inherit] opacity-0";
