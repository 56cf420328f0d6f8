import { Form, useNavigation } from "react-router";
import { Field, Notice } from "~/components/ui";
import { authErrorMessage } from "~/lib/auth-errors";
import { authPost } from "~/lib/auth-forms.server";
import { EmailSchema, fieldErrors } from "~/lib/forms";
import type { Route } from "./+types/forgot-password";

export const meta: Route.MetaFunction = () => [{ title: "Forgot your password — Atelier" }];

/** The same answer whether or not the address has an account (better-auth's too). */
export async function action({ request }: Route.ActionArgs) {
  const form = Object.fromEntries(await request.formData());
  const parsed = EmailSchema.safeParse(form);
  if (!parsed.success) return { errors: fieldErrors(parsed.error), email: String(form.email ?? ""), sent: false };
  const reply = await authPost(request, "/request-password-reset", { email: parsed.data.email, redirectTo: "/reset-password" });
  if (!reply.ok) return { errors: { form: authErrorMessage(reply) }, email: parsed.data.email, sent: false };
  return { errors: {}, email: parsed.data.email, sent: true };
}

export default function ForgotPassword({ actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const errors: Partial<Record<string, string>> = actionData?.errors ?? {};
  return (
    <div className="mx-auto max-w-md">
      <div className="card">
        <h1 className="text-2xl font-semibold">Forgot your password?</h1>
        {actionData?.sent ? (
          <div className="mt-4">
            <Notice kind="success">
              If {actionData.email} has an account, we have sent it a link to choose a new password. The link works for one hour.
            </Notice>
          </div>
        ) : (
          <>
            <p className="mt-1 text-sm text-muted-foreground">Enter your address and we will send you a link to choose a new one.</p>
            <Form method="post" className="mt-6 space-y-4" noValidate>
              {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}
              <Field label="Email" name="email" type="email" autoComplete="email" required defaultValue={actionData?.email} error={errors.email} />
              <button type="submit" className="btn-primary w-full" disabled={busy}>
                {busy ? "Sending…" : "Send the link"}
              </button>
            </Form>
          </>
        )}
        <p className="mt-4 text-sm text-muted-foreground">
          Remembered it?{" "}
          <a className="font-medium text-accent underline" href="/sign-in">
            Sign in
          </a>
        </p>
      </div>
    </div>
  );
}
