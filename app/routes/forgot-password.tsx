import { useTranslation } from "react-i18next";
import { AuthCard, EmailLinkForm, type EmailLinkResult } from "~/components/ui";
import { authPost } from "~/http/auth-forms.server";
import { localizedAuthError, localizeFieldErrors } from "~/http/form-messages";
import { EmailSchema, fieldErrors } from "~/http/forms";
import { authErrorMessage } from "~/lib/auth-errors";
import { getInstance } from "~/lib/i18n.server";
import type { Route } from "./+types/forgot-password";

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];

export function loader({ context }: Route.LoaderArgs) {
  return { title: getInstance(context).t("auth:forgot.title") };
}

/** The same answer whether or not the address has an account (better-auth's too). */
export async function action({ request, context }: Route.ActionArgs): Promise<EmailLinkResult> {
  const { t } = getInstance(context);
  const form = Object.fromEntries(await request.formData());
  const parsed = EmailSchema.safeParse(form);
  if (!parsed.success)
    return { errors: localizeFieldErrors(fieldErrors(parsed.error), t), email: String(form.email ?? ""), sent: false };
  const reply = await authPost(request, "/request-password-reset", {
    email: parsed.data.email,
    redirectTo: "/reset-password",
  });
  if (!reply.ok) return { errors: { form: localizedAuthError(reply, t) }, email: parsed.data.email, sent: false };
  return { errors: {}, email: parsed.data.email, sent: true };
}

export default function ForgotPassword({ actionData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  return (
    <AuthCard
      title={t("forgot.heading")}
      description={actionData?.sent ? undefined : t("forgot.description")}
      footer={
        <>
          {t("forgot.remembered")}{" "}
          <a className="link" href="/sign-in">
            {t("forgot.signIn")}
          </a>
        </>
      }
    >
      <EmailLinkForm
        result={actionData}
        submitLabel={t("forgot.submit")}
        sent={(email) => t("forgot.sent", { email })}
      />
    </AuthCard>
  );
}
