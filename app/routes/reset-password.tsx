import { useTranslation } from "react-i18next";
import { Form, redirect, useNavigation } from "react-router";
import { AuthCard, Button, Field, Notice } from "~/components/ui";
import { authPost } from "~/http/auth-forms.server";
import { localizedAuthError, localizeFieldErrors } from "~/http/form-messages";
import { fieldErrors, ResetPasswordSchema } from "~/http/forms";
import { authErrorMessage } from "~/lib/auth-errors";
import { getInstance } from "~/lib/i18n.server";
import type { Route } from "./+types/reset-password";

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];

/** The link in the reset e-mail lands here: `/reset-password?token=…`. */
export function loader({ request, context }: Route.LoaderArgs) {
  return {
    title: getInstance(context).t("auth:reset.title"),
    token: new URL(request.url).searchParams.get("token") ?? "",
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { t } = getInstance(context);
  const form = Object.fromEntries(await request.formData());
  const parsed = ResetPasswordSchema.safeParse(form);
  if (!parsed.success) return { errors: localizeFieldErrors(fieldErrors(parsed.error), t) };
  const reply = await authPost(request, "/reset-password", {
    token: parsed.data.token,
    newPassword: parsed.data.password,
  });
  if (!reply.ok) return { errors: { form: localizedAuthError(reply, t) } };
  return redirect("/sign-in?notice=password-reset");
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const errors: Partial<Record<string, string>> = actionData?.errors ?? {};
  const broken = errors.form ?? errors.token;
  const { t } = useTranslation("auth");
  return (
    <AuthCard
      title={t("reset.heading")}
      footer={
        <a className="link" href="/forgot-password">
          {t("reset.askNew")}
        </a>
      }
    >
      {!loaderData.token ? (
        <Notice kind="error">{t("reset.incomplete")}</Notice>
      ) : (
        <Form method="post" className="space-y-4" noValidate>
          {broken ? <Notice kind="error">{broken}</Notice> : null}
          <p className="text-sm text-muted-foreground">{t("reset.warning")}</p>
          <input type="hidden" name="token" value={loaderData.token} />
          <Field
            label={t("reset.newPassword")}
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={128}
            hint={t("passwordHint")}
            error={errors.password}
          />
          <Field
            label={t("reset.repeat")}
            name="confirm"
            type="password"
            autoComplete="new-password"
            required
            error={errors.confirm}
          />
          <Button type="submit" className="w-full" disabled={busy}>
            {busy ? t("reset.busy") : t("reset.submit")}
          </Button>
        </Form>
      )}
    </AuthCard>
  );
}
