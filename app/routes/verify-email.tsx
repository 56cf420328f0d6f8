import { AuthCard, buttonVariants, EmailLinkForm, type EmailLinkResult, Notice } from "~/components/ui";
import { authGet, authPost } from "~/http/auth-forms.server";
import { EmailSchema, fieldErrors } from "~/http/forms";
import { getUiUser } from "~/http/session.server";
import { authErrorMessage } from "~/lib/auth-errors";
import type { Route } from "./+types/verify-email";

export const meta: Route.MetaFunction = () => [{ title: "Confirm your e-mail — Atelier" }];

/** The link in the verification e-mail lands here: `/verify-email?token=…`. */
export async function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token");
  const signedIn = Boolean(await getUiUser(request));
  if (!token) return { state: "ask" as const, signedIn, error: null };
  // Through the HTTP handler with the visitor's cookie: a link opened by someone not signed in to the account
  // takes the account back (app/http/auth.server.ts).
  const reply = await authGet(request, `/verify-email?token=${encodeURIComponent(token)}`);
  if (reply.ok) return { state: "verified" as const, signedIn, error: null };
  return { state: "failed" as const, signedIn, error: authErrorMessage(reply) };
}

/** Another link: the same answer whether or not the address has an account waiting. */
export async function action({ request }: Route.ActionArgs): Promise<EmailLinkResult> {
  const form = Object.fromEntries(await request.formData());
  const parsed = EmailSchema.safeParse(form);
  if (!parsed.success) return { errors: fieldErrors(parsed.error), email: String(form.email ?? ""), sent: false };
  const reply = await authPost(request, "/send-verification-email", { email: parsed.data.email });
  if (!reply.ok && reply.status === 429)
    return { errors: { form: authErrorMessage(reply) }, email: parsed.data.email, sent: false };
  return { errors: {}, email: parsed.data.email, sent: true };
}

export default function VerifyEmail({ loaderData, actionData }: Route.ComponentProps) {
  const { state, signedIn, error } = loaderData;
  if (state === "verified") {
    return (
      <AuthCard title="E-mail confirmed">
        <Notice kind="success">Thank you: your address is confirmed.</Notice>
        <a className={buttonVariants({ className: "w-full" })} href={signedIn ? "/account" : "/sign-in"}>
          {signedIn ? "Go to your account" : "Sign in"}
        </a>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Confirm your e-mail"
      description={actionData?.sent ? undefined : "Enter your address and we will send you a new confirmation link."}
    >
      {state === "failed" && error ? <Notice kind="error">{error}</Notice> : null}
      <EmailLinkForm
        result={actionData}
        submitLabel="Send a new link"
        sent={(email) => `If ${email} has an account waiting for confirmation, a new link is on its way.`}
      />
    </AuthCard>
  );
}
