import { Trans, useTranslation } from "react-i18next";
import { Form, redirect, useNavigation } from "react-router";
import { CaptchaWidget } from "~/components/auth/captcha-widget";
import { ProviderButtons } from "~/components/auth/provider-buttons";
import { AuthCard, Button, Field, Notice } from "~/components/ui";
import { inviterOf } from "~/domain/billing/orders.server";
import { authPost } from "~/http/auth-forms.server";
import { CAPTCHA_HEADER, captchaTokenOf, captchaWidgetOf } from "~/http/captcha.server";
import { localizedAuthError, localizeFieldErrors } from "~/http/form-messages";
import { fieldErrors, SignUpSchema } from "~/http/forms";
import { getServices } from "~/http/services.server";
import { getUiUser } from "~/http/session.server";
import { signInProviders } from "~/http/sign-in-providers.server";
import { authErrorMessage } from "~/lib/auth-errors";
import { getInstance } from "~/lib/i18n.server";
import type { Route } from "./+types/sign-up";

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];

export async function loader({ request, context }: Route.LoaderArgs) {
  if (await getUiUser(request)) throw redirect("/studio");
  const ref = new URL(request.url).searchParams.get("ref") ?? "";
  const { db, config } = getServices();
  return {
    title: getInstance(context).t("auth:signUp.title"),
    ref,
    inviter: await inviterOf(db, ref),
    providers: signInProviders(config),
    captcha: captchaWidgetOf(config),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { t } = getInstance(context);
  const form = Object.fromEntries(await request.formData());
  const parsed = SignUpSchema.safeParse(form);
  if (!parsed.success)
    return {
      errors: localizeFieldErrors(fieldErrors(parsed.error), t),
      values: { name: String(form.name ?? ""), email: String(form.email ?? "") },
    };
  // `ref` travels with the body; the user-create hook resolves it to invited_by. The captcha widget's token goes
  // where better-auth's captcha plugin reads it (no token: the plugin refuses, when a captcha is configured).
  const token = captchaTokenOf(form);
  const reply = await authPost(
    request,
    "/sign-up/email",
    { name: parsed.data.name, email: parsed.data.email, password: parsed.data.password, ref: parsed.data.ref },
    token ? { [CAPTCHA_HEADER]: token } : {},
  );
  if (!reply.ok)
    return {
      errors: { form: localizedAuthError(reply, t) },
      values: { name: parsed.data.name, email: parsed.data.email },
    };
  // Without a mail transport sign-up signs in; with one, the account waits for its verified address
  // (and a taken address gets the very same answer: its owner is mailed instead).
  if (reply.headers.has("set-cookie")) return redirect("/studio", { headers: reply.headers });
  return { sent: parsed.data.email };
}

/** The translated "ask for a new link" sentence, its `<link>…</link>` words as the link to /verify-email. */
function NothingArrived({ text }: { text: string }) {
  const m = /^(.*)<link>(.*)<\/link>(.*)$/s.exec(text);
  if (!m) return <>{text}</>;
  return (
    <>
      {m[1]}
      <a className="link" href="/verify-email">
        {m[2]}
      </a>
      {m[3]}
    </>
  );
}

export default function SignUp({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const errors: Partial<Record<string, string>> =
    (actionData && "errors" in actionData ? actionData.errors : undefined) ?? {};
  const values = actionData && "values" in actionData ? actionData.values : undefined;
  const { t } = useTranslation("auth");
  if (actionData && "sent" in actionData) {
    return (
      <AuthCard title={t("signUp.checkInbox")} footer={<NothingArrived text={t("signUp.nothingArrived")} />}>
        <Notice kind="success">
          <Trans t={t} i18nKey="signUp.sent" values={{ email: actionData.sent }} components={{ strong: <strong /> }} />
        </Notice>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title={t("signUp.heading")}
      description={t("signUp.description")}
      footer={
        <>
          {t("signUp.haveAccount")}{" "}
          <a className="link" href="/sign-in">
            {t("signUp.signIn")}
          </a>
        </>
      }
    >
      {loaderData.inviter ? (
        <Notice kind="success">{t("signUp.invited", { name: loaderData.inviter.nickname })}</Notice>
      ) : null}
      <ProviderButtons providers={loaderData.providers} inviteCode={loaderData.ref} />
      <Form method="post" className="space-y-4" noValidate>
        {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}
        <input type="hidden" name="ref" value={loaderData.ref} />
        <Field
          label={t("signUp.name")}
          name="name"
          autoComplete="name"
          required
          maxLength={100}
          defaultValue={values?.name}
          error={errors.name}
        />
        <Field
          label={t("email")}
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={values?.email}
          error={errors.email}
        />
        <Field
          label={t("password")}
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          maxLength={128}
          hint={t("passwordHint")}
          error={errors.password}
        />
        {loaderData.captcha ? <CaptchaWidget captcha={loaderData.captcha} attempt={actionData} /> : null}
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? t("signUp.busy") : t("signUp.submit")}
        </Button>
      </Form>
    </AuthCard>
  );
}
