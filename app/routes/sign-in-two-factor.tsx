import { Form, redirect, useNavigation } from "react-router";
import { AuthCard, Button, Field, Notice } from "~/components/ui";
import { authPost } from "~/http/auth-forms.server";
import { getUiUser, safeNext } from "~/http/session.server";
import { authErrorMessage } from "~/lib/auth-errors";
import type { Route } from "./+types/sign-in-two-factor";

export const meta: Route.MetaFunction = () => [{ title: "Two-factor check — Atelier" }];

/**
 * The second step of a password sign-in once two-factor is on: a code from the authenticator app, or one of the
 * one-time backup codes. better-auth keeps the pending sign-in in a signed cookie (10 minutes, a few tries).
 */
export async function loader({ request }: Route.LoaderArgs) {
  const next = new URL(request.url).searchParams.get("next");
  if (await getUiUser(request)) throw redirect(safeNext(next));
  return { next: next ?? "" };
}

export async function action({ request }: Route.ActionArgs) {
  const form = await request.formData();
  const code = String(form.get("code") ?? "").replace(/\s+/g, "");
  const backup = form.get("method") === "backup";
  const next = form.get("next");
  if (!code || code.length > 64) return { error: "Enter the code." };
  const reply = await authPost(request, backup ? "/two-factor/verify-backup-code" : "/two-factor/verify-totp", {
    code,
  });
  if (!reply.ok) {
    if (reply.code === "INVALID_TWO_FACTOR_COOKIE")
      return { error: "This sign-in has expired. Sign in with your password again." };
    return { error: authErrorMessage(reply) };
  }
  return redirect(safeNext(typeof next === "string" ? next : null), { headers: reply.headers });
}

export default function SignInTwoFactor({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  return (
    <AuthCard
      title="Two-factor check"
      description="Enter the 6-digit code from your authenticator app."
      footer={
        <a className="link" href="/sign-in">
          Start again
        </a>
      }
    >
      {actionData?.error ? <Notice kind="error">{actionData.error}</Notice> : null}
      <Form method="post" className="space-y-4">
        <input type="hidden" name="next" value={loaderData.next} />
        <input type="hidden" name="method" value="totp" />
        <Field
          label="Authenticator code"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9 ]{6,8}"
          required
        />
        <Button type="submit" className="w-full" disabled={busy}>
          Verify
        </Button>
      </Form>
      <details className="rounded-xl border border-border p-3 text-sm">
        <summary className="cursor-pointer font-medium">Use a backup code instead</summary>
        <Form method="post" className="mt-3 space-y-3">
          <input type="hidden" name="next" value={loaderData.next} />
          <input type="hidden" name="method" value="backup" />
          <Field label="Backup code" name="code" id="f-backup-code" autoComplete="off" required />
          <Button type="submit" variant="secondary" className="w-full" disabled={busy}>
            Use backup code
          </Button>
        </Form>
      </details>
    </AuthCard>
  );
}
