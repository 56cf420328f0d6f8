import { Send, Star } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Form, useNavigation } from "react-router";
import { Button, coverInput, FieldError, labelClass, Notice, PageHeader, TextArea } from "~/components/ui";
import { addFeedback } from "~/domain/feedback/feedback.server";
import { FEEDBACK_MAX_CHARS, FeedbackFormSchema, fieldErrors } from "~/http/forms";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import { getInstance } from "~/lib/i18n.server";
import type { Route } from "./+types/feedback";

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireUiUser(request);
  return { title: getInstance(context).t("feedback:title") };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const form = Object.fromEntries(await request.formData());
  const parsed = FeedbackFormSchema.safeParse(form);
  if (!parsed.success) {
    return {
      ok: false,
      errors: fieldErrors(parsed.error),
      values: { content: String(form.content ?? ""), rating: String(form.rating ?? "") },
    };
  }
  const { db, clock } = getServices();
  try {
    await addFeedback(db, user.id, parsed.data, clock);
  } catch (error) {
    if (isAppError(error) && error.code === "RATE_LIMITED")
      return {
        ok: false,
        errors: { form: getInstance(context).t("feedback:limited") },
        values: { content: parsed.data.content, rating: String(parsed.data.rating) },
      };
    throw error;
  }
  return { ok: true, errors: {}, values: { content: "", rating: "" } };
}

const RATINGS = [1, 2, 3, 4, 5];

export default function Feedback({ actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const errors = actionData?.errors ?? {};
  const values = actionData?.values ?? { content: "", rating: "" };
  const { t } = useTranslation("feedback");
  return (
    <div className="mx-auto max-w-2xl">
      <PageHeader title={t("heading")} description={t("description")} />
      <div className="rounded-card border border-border bg-surface p-5 sm:p-6">
        {actionData?.ok ? (
          <Notice kind="success" className="mb-4">
            {t("sent")}
          </Notice>
        ) : null}
        {errors.form ? (
          <Notice kind="error" className="mb-4">
            {errors.form}
          </Notice>
        ) : null}
        <Form method="post" className="space-y-5" noValidate key={actionData?.ok ? "sent" : "form"}>
          <TextArea
            label={t("label")}
            name="content"
            rows={6}
            required
            maxLength={FEEDBACK_MAX_CHARS}
            defaultValue={values.content}
            error={errors.content}
            hint={t("hint", { max: FEEDBACK_MAX_CHARS })}
          />
          <fieldset aria-describedby={errors.rating ? "f-rating-error" : undefined}>
            <legend className={labelClass}>{t("rating")}</legend>
            <div className="mt-2 flex flex-wrap gap-2">
              {RATINGS.map((r) => (
                <label
                  key={r}
                  className="relative flex cursor-pointer items-center gap-1.5 rounded-full border border-border px-3 py-1.5 text-sm transition hover:bg-muted has-[:checked]:border-primary has-[:checked]:bg-accent-soft has-[:checked]:text-accent-soft-foreground has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-ring"
                >
                  <input
                    type="radio"
                    name="rating"
                    value={r}
                    defaultChecked={values.rating === String(r)}
                    required
                    className={coverInput}
                  />
                  <Star aria-hidden="true" className="size-4" />
                  {t("stars", { count: r })}
                </label>
              ))}
            </div>
            {errors.rating ? <FieldError id="f-rating-error">{errors.rating}</FieldError> : null}
          </fieldset>
          <Button type="submit" disabled={busy}>
            <Send aria-hidden="true" />
            {busy ? t("sending") : t("send")}
          </Button>
        </Form>
      </div>
    </div>
  );
}
