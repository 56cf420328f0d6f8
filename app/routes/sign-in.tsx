import { Form, redirect, useNavigation } from "react-router";
import { PasskeySignInButton } from "~/components/account/passkey-button";
import { ProviderButtons } from "~/components/auth/provider-buttons";
import { AuthCard, Button, Field, Notice } from "~/components/ui";
import { authPost } from "~/http/auth-forms.server";
import { fieldErrors, SignInSchema } from "~/http/forms";
import { getServices } from "~/http/services.server";
import { getUiUser, safeNext } from "~/http/session.server";
import { signInProviders } from "~/http/sign-in-providers.server";
import { authErrorMessage, providerErrorMessage } from "~/lib/auth-errors";
import type { Route } from "./+types/sign-in";

export const meta: Route.MetaFunction = () => [{ title: "Sign in — Atelier" }];

export async function loader({ request }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams;
  const next = params.get("next");
  if (await getUiUser(request)) throw redirect(safeNext(next));
  const error = params.get("error");
  return {
    next: next ?? "",
    providers: signInProviders(getServices().config),
    providerError: error ? providerErrorMessage(error.slice(0, 100)) : null,
  };
}

export async function action({ request }: Route.ActionArgs) {
  const form = Object.fromEntries(await request.formData());
  const parsed = SignInSchema.safeParse(form);
  if (!parsed.success) return { errors: fieldErrors(parsed.error), email: String(form.email ?? "") };
  const reply = await authPost(request, "/sign-in/email", { email: parsed.data.email, password: parsed.data.password });
  if (!reply.ok) return { errors: { form: authErrorMessage(reply) }, email: parsed.data.email };
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
  return (
    <AuthCard
      title="Sign in"
      description="Welcome back — your studio and gallery are waiting."
      footer={
        <>
          No account yet?{" "}
          <a className="link" href="/sign-up">
            Sign up
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
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={actionData?.email}
          error={errors.email}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          error={errors.password}
        />
        <p className="text-sm">
          <a className="link" href="/forgot-password">
            Forgot your password?
          </a>
        </p>
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </Button>
      </Form>
    </AuthCard>
  );
}
