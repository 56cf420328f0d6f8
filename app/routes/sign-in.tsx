import { useTranslation } from "react-i18next";
import { Form, redirect, useNavigation } from "react-router";
import { PasskeySignInButton } from "~/components/account/passkey-button";
import { ProviderButtons } from "~/components/auth/provider-buttons";
import { AuthCard, Button, Field, Notice } from "~/components/ui";
import { authPost } from "~/http/auth-forms.server";
import { localizedAuthError, localizeFieldErrors } from "~/http/form-messages";
import { fieldErrors, SignInSchema } from "~/http/forms";
import { getServices } from "~/http/services.server";
import { getUiUser, safeNext } from "~/http/session.server";
import { signInProviders } from "~/http/sign-in-providers.server";
import { authErrorMessage, providerErrorMessage } from "~/lib/auth-errors";
import { getInstance } from "~/lib/i18n.server";
import type { Route } from "./+types/sign-in";

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams;
  const next = params.get("next");
  if (await getUiUser(request)) throw redirect(safeNext(next));
  const error = params.get("error");
  return {
    title: getInstance(context).t("auth:signIn.title"),
    next: next ?? "",
    providers: signInProviders(getServices().config),
    providerError: error ? providerErrorMessage(error.slice(0, 100)) : null,
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { t } = getInstance(context);
  const form = Object.fromEntries(await request.formData());
  const parsed = SignInSchema.safeParse(form);
  if (!parsed.success)
    return { errors: localizeFieldErrors(fieldErrors(parsed.error), t), email: String(form.email ?? "") };
  const reply = await authPost(request, "/sign-in/email", { email: parsed.data.email, password: parsed.data.password });
  if (!reply.ok) return { errors: { form: localizedAuthError(reply, t) }, email: parsed.data.email };
  // Two-factor on: no session yet, better-auth's pending sign-in cookie instead; the code is asked next.
  if (reply.data?.twoFactorRedirect) {
    const next = parsed.data.next ? `?next=${encodeURIComponent(parsed.data.next)}` : "";
    return redirect(`/sign-in/two-factor${next}`, { headers: reply.headers });
  }
  return redirect(safeNext(parsed.data.next), { headers: reply.headers });
}

export default function SignIn({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const errors = actionData?.errors ?? {};
  const { t } = useTranslation("auth");
  return (
    <AuthCard
      title={t("signIn.heading")}
      description={t("signIn.description")}
      footer={
        <>
          {t("signIn.noAccount")}{" "}
          <a className="link" href="/sign-up">
            {t("signIn.signUp")}
          </a>
        </>
      }
    >
      {loaderData.providerError && !errors.form ? <Notice kind="error">{loaderData.providerError}</Notice> : null}
      <PasskeySignInButton next={loaderData.next} />
      <ProviderButtons providers={loaderData.providers} next={loaderData.next} />
      <Form method="post" className="space-y-4" noValidate>
        {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}
        <input type="hidden" name="next" value={loaderData.next} />
        <Field
          label={t("email")}
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={actionData?.email}
          error={errors.email}
        />
        <Field
          label={t("password")}
          name="password"
          type="password"
          autoComplete="current-password"
          required
          error={errors.password}
        />
        <p className="text-sm">
          <a className="link" href="/forgot-password">
            {t("signIn.forgot")}
          </a>
        </p>
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? t("signIn.busy") : t("signIn.submit")}
        </Button>
      </Form>
    </AuthCard>
  );
}
