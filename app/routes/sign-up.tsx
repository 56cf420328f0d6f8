import { Form, redirect, useNavigation } from "react-router";
import { CaptchaWidget } from "~/components/auth/captcha-widget";
import { ProviderButtons } from "~/components/auth/provider-buttons";
import { AuthCard, Button, Field, Notice } from "~/components/ui";
import { inviterOf } from "~/domain/billing/orders.server";
import { authPost } from "~/http/auth-forms.server";
import { CAPTCHA_HEADER, captchaTokenOf, captchaWidgetOf } from "~/http/captcha.server";
import { fieldErrors, SignUpSchema } from "~/http/forms";
import { getServices } from "~/http/services.server";
import { getUiUser } from "~/http/session.server";
import { signInProviders } from "~/http/sign-in-providers.server";
import { authErrorMessage } from "~/lib/auth-errors";
import type { Route } from "./+types/sign-up";

export const meta: Route.MetaFunction = () => [{ title: "Sign up — Atelier" }];

export async function loader({ request }: Route.LoaderArgs) {
  if (await getUiUser(request)) throw redirect("/studio");
  const ref = new URL(request.url).searchParams.get("ref") ?? "";
  const { db, config } = getServices();
  return {
    ref,
    inviter: await inviterOf(db, ref),
    providers: signInProviders(config),
    captcha: captchaWidgetOf(config),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const form = Object.fromEntries(await request.formData());
  const parsed = SignUpSchema.safeParse(form);
  if (!parsed.success)
    return {
      errors: fieldErrors(parsed.error),
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
    return { errors: { form: authErrorMessage(reply) }, values: { name: parsed.data.name, email: parsed.data.email } };
  // Without a mail transport sign-up signs in; with one, the account waits for its verified address
  // (and a taken address gets the very same answer: its owner is mailed instead).
  if (reply.headers.has("set-cookie")) return redirect("/studio", { headers: reply.headers });
  return { sent: parsed.data.email };
}

export default function SignUp({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const errors: Partial<Record<string, string>> =
    (actionData && "errors" in actionData ? actionData.errors : undefined) ?? {};
  const values = actionData && "values" in actionData ? actionData.values : undefined;
  if (actionData && "sent" in actionData) {
    return (
      <AuthCard
        title="Check your inbox"
        footer={
          <>
            Nothing arrived after a few minutes? Look in your spam folder, or{" "}
            <a className="link" href="/verify-email">
              ask for a new link
            </a>
            .
          </>
        }
      >
        <Notice kind="success">
          We have sent a link to <strong>{actionData.sent}</strong>. Open it to confirm your address, then sign in.
        </Notice>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Create your account"
      description="New accounts start with free credits."
      footer={
        <>
          Already have an account?{" "}
          <a className="link" href="/sign-in">
            Sign in
          </a>
        </>
      }
    >
      {loaderData.inviter ? (
        <Notice kind="success">{loaderData.inviter.nickname} invited you to Atelier. Welcome!</Notice>
      ) : null}
      <ProviderButtons providers={loaderData.providers} inviteCode={loaderData.ref} />
      <Form method="post" className="space-y-4" noValidate>
        {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}
        <input type="hidden" name="ref" value={loaderData.ref} />
        <Field
          label="Name"
          name="name"
          autoComplete="name"
          required
          maxLength={100}
          defaultValue={values?.name}
          error={errors.name}
        />
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={values?.email}
          error={errors.email}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          maxLength={128}
          hint="At least 8 characters."
          error={errors.password}
        />
        {loaderData.captcha ? <CaptchaWidget captcha={loaderData.captcha} attempt={actionData} /> : null}
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? "Creating account…" : "Sign up"}
        </Button>
      </Form>
    </AuthCard>
  );
}
