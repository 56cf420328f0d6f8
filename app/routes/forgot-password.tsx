import { Form, useNavigation } from "react-router";
import { AuthCard, Button, Field, Notice } from "~/components/ui";
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
    <AuthCard
      title="Forgot your password?"
      description={actionData?.sent ? undefined : "Enter your address and we will send you a link to choose a new one."}
      footer={
        <>
          Remembered it?{" "}
          <a className="link" href="/sign-in">
            Sign in
          </a>
        </>
      }
    >
      {actionData?.sent ? (
        <Notice kind="success">If {actionData.email} has an account, we have sent it a link to choose a new password. The link works for one hour.</Notice>
      ) : (
        <Form method="post" className="space-y-4" noValidate>
          {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}
          <Field label="Email" name="email" type="email" autoComplete="email" required defaultValue={actionData?.email} error={errors.email} />
          <Button type="submit" className="w-full" disabled={busy}>
            {busy ? "Sending…" : "Send the link"}
          </Button>
        </Form>
      )}
    </AuthCard>
  );
}
