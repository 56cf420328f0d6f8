import { AuthCard, EmailLinkForm, type EmailLinkResult } from "~/components/ui";
import { authPost } from "~/http/auth-forms.server";
import { EmailSchema, fieldErrors } from "~/http/forms";
import { authErrorMessage } from "~/lib/auth-errors";
import type { Route } from "./+types/forgot-password";

export const meta: Route.MetaFunction = () => [{ title: "Forgot your password — Atelier" }];

/** The same answer whether or not the address has an account (better-auth's too). */
export async function action({ request }: Route.ActionArgs): Promise<EmailLinkResult> {
  const form = Object.fromEntries(await request.formData());
  const parsed = EmailSchema.safeParse(form);
  if (!parsed.success) return { errors: fieldErrors(parsed.error), email: String(form.email ?? ""), sent: false };
  const reply = await authPost(request, "/request-password-reset", {
    email: parsed.data.email,
    redirectTo: "/reset-password",
  });
  if (!reply.ok) return { errors: { form: authErrorMessage(reply) }, email: parsed.data.email, sent: false };
  return { errors: {}, email: parsed.data.email, sent: true };
}

export default function ForgotPassword({ actionData }: Route.ComponentProps) {
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
      <EmailLinkForm
        result={actionData}
        submitLabel="Send the link"
        sent={(email) =>
          `If ${email} has an account, we have sent it a link to choose a new password. The link works for one hour.`
        }
      />
    </AuthCard>
  );
}
