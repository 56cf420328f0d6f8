import { useTranslation } from "react-i18next";
import { AuthCard, buttonVariants, EmailLinkForm, type EmailLinkResult, Notice } from "~/components/ui";
import { authGet, authPost } from "~/http/auth-forms.server";
import { localizedAuthError, localizeFieldErrors } from "~/http/form-messages";
import { EmailSchema, fieldErrors } from "~/http/forms";
import { getUiUser } from "~/http/session.server";
import { authErrorMessage } from "~/lib/auth-errors";
import { getInstance } from "~/lib/i18n.server";
import type { Route } from "./+types/verify-email";

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];

/** The link in the verification e-mail lands here: `/verify-email?token=…`. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const title = getInstance(context).t("auth:verify.title");
  const token = new URL(request.url).searchParams.get("token");
  const signedIn = Boolean(await getUiUser(request));
  if (!token) return { title, state: "ask" as const, signedIn, error: null };
  // Through the HTTP handler with the visitor's cookie: a link opened by someone not signed in to the account
  // takes the account back (app/http/auth.server.ts).
  const reply = await authGet(request, `/verify-email?token=${encodeURIComponent(token)}`);
  if (reply.ok) return { title, state: "verified" as const, signedIn, error: null };
  return { title, state: "failed" as const, signedIn, error: authErrorMessage(reply) };
}

/** Another link: the same answer whether or not the address has an account waiting. */
export async function action({ request, context }: Route.ActionArgs): Promise<EmailLinkResult> {
  const { t } = getInstance(context);
  const form = Object.fromEntries(await request.formData());
  const parsed = EmailSchema.safeParse(form);
  if (!parsed.success)
    return { errors: localizeFieldErrors(fieldErrors(parsed.error), t), email: String(form.email ?? ""), sent: false };
  const reply = await authPost(request, "/send-verification-email", { email: parsed.data.email });
  if (!reply.ok && reply.status === 429)
    return { errors: { form: localizedAuthError(reply, t) }, email: parsed.data.email, sent: false };
  return { errors: {}, email: parsed.data.email, sent: true };
}

export default function VerifyEmail({ loaderData, actionData }: Route.ComponentProps) {
  const { state, signedIn, error } = loaderData;
  const { t } = useTranslation("auth");
  if (state === "verified") {
    return (
      <AuthCard title={t("verify.confirmed")}>
        <Notice kind="success">{t("verify.thanks")}</Notice>
        <a className={buttonVariants({ className: "w-full" })} href={signedIn ? "/account" : "/sign-in"}>
          {signedIn ? t("verify.toAccount") : t("verify.signIn")}
        </a>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t("verify.heading")} description={actionData?.sent ? undefined : t("verify.description")}>
      {state === "failed" && error ? <Notice kind="error">{error}</Notice> : null}
      <EmailLinkForm
        result={actionData}
        submitLabel={t("verify.submit")}
        sent={(email) => t("verify.sent", { email })}
      />
    </AuthCard>
  );
}
