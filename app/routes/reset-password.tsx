import { Form, redirect, useNavigation } from "react-router";
import { AuthCard, Button, Field, Notice } from "~/components/ui";
import { authPost } from "~/http/auth-forms.server";
import { fieldErrors, ResetPasswordSchema } from "~/http/forms";
import { authErrorMessage } from "~/lib/auth-errors";
import type { Route } from "./+types/reset-password";

export const meta: Route.MetaFunction = () => [{ title: "Choose a new password — Atelier" }];

/** The link in the reset e-mail lands here: `/reset-password?token=…`. */
export function loader({ request }: Route.LoaderArgs) {
  return { token: new URL(request.url).searchParams.get("token") ?? "" };
}

export async function action({ request }: Route.ActionArgs) {
  const form = Object.fromEntries(await request.formData());
  const parsed = ResetPasswordSchema.safeParse(form);
  if (!parsed.success) return { errors: fieldErrors(parsed.error) };
  const reply = await authPost(request, "/reset-password", {
    token: parsed.data.token,
    newPassword: parsed.data.password,
  });
  if (!reply.ok) return { errors: { form: authErrorMessage(reply) } };
  return redirect("/sign-in?notice=password-reset");
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const errors: Partial<Record<string, string>> = actionData?.errors ?? {};
  const broken = errors.form ?? errors.token;
  return (
    <AuthCard
      title="Choose a new password"
      footer={
        <a className="link" href="/forgot-password">
          Ask for a new link
        </a>
      }
    >
      {!loaderData.token ? (
        <Notice kind="error">
          This link is incomplete. Open the link from the e-mail again, or ask for a new one.
        </Notice>
      ) : (
        <Form method="post" className="space-y-4" noValidate>
          {broken ? <Notice kind="error">{broken}</Notice> : null}
          <p className="text-sm text-muted-foreground">
            Saving a new password signs out every session of this account and revokes its API keys and webhooks made
            before now: whoever held the account loses it. It also removes its passkeys, its two-factor (authenticator
            app, backup codes, trusted devices) and its linked sign-in providers: only the new password signs in, and
            you add back the ones that are yours.
          </p>
          <input type="hidden" name="token" value={loaderData.token} />
          <Field
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={128}
            hint="At least 8 characters."
            error={errors.password}
          />
          <Field
            label="Repeat the new password"
            name="confirm"
            type="password"
            autoComplete="new-password"
            required
            error={errors.confirm}
          />
          <Button type="submit" className="w-full" disabled={busy}>
            {busy ? "Saving…" : "Save the new password"}
          </Button>
        </Form>
      )}
    </AuthCard>
  );
}
