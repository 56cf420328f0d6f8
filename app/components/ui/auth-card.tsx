import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Form, useNavigation } from "react-router";
import { Button } from "./button";
import { cardClass } from "./card";
import { Field } from "./field";
import { Notice } from "./notice";

/** The narrow card of the account pages (sign in/up, verify, reset): title, optional lead, body, footer line. */
export function AuthCard({
  title,
  description,
  footer,
  children,
}: {
  title: string;
  description?: ReactNode;
  footer?: ReactNode;
  children: ReactNode;
}) {
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

/** What an "e-mail me a link" action answers: field errors, the address typed, and whether a link went out. */
export interface EmailLinkResult {
  errors: Partial<Record<string, string>>;
  email: string;
  sent: boolean;
}

/**
 * "Enter your address, we send a link" (forgot password, a new confirmation link): the form,
 * or once sent, `sent(email)` as a success notice. Works without JavaScript.
 */
export function EmailLinkForm({
  result,
  submitLabel,
  sent,
}: {
  result: EmailLinkResult | undefined;
  submitLabel: string;
  sent: (email: string) => ReactNode;
}) {
  const busy = useNavigation().state === "submitting";
  const errors = result?.errors ?? {};
  const { t } = useTranslation("auth");
  if (result?.sent) return <Notice kind="success">{sent(result.email)}</Notice>;
  return (
    <Form method="post" className="space-y-4" noValidate>
      {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}
      <Field
        label={t("email")}
        name="email"
        type="email"
        autoComplete="email"
        required
        defaultValue={result?.email}
        error={errors.email}
      />
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? t("sending") : submitLabel}
      </Button>
    </Form>
  );
}
