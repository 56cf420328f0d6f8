import { Send, Star } from "lucide-react";
import { Form, useNavigation } from "react-router";
import { Button, coverInput, FieldError, labelClass, Notice, PageHeader, TextArea } from "~/components/ui";
import { UI_MESSAGES } from "~/domain/account/messages";
import { addFeedback } from "~/domain/feedback/feedback.server";
import { FEEDBACK_MAX_CHARS, FeedbackFormSchema, fieldErrors } from "~/http/forms";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import type { Route } from "./+types/feedback";

export const meta: Route.MetaFunction = () => [{ title: "Feedback — Atelier" }];

export async function loader({ request }: Route.LoaderArgs) {
  await requireUiUser(request);
  return null;
}

export async function action({ request }: Route.ActionArgs) {
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
        errors: { form: UI_MESSAGES.FEEDBACK_LIMITED },
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
  return (
    <div className="mx-auto max-w-2xl">
      <PageHeader
        title="Feedback"
        description="What works, what doesn’t, what you wish Atelier did. We read every message."
      />
      <div className="rounded-card border border-border bg-surface p-5 sm:p-6">
        {actionData?.ok ? (
          <Notice kind="success" className="mb-4">
            {UI_MESSAGES.FEEDBACK_SENT}
          </Notice>
        ) : null}
        {errors.form ? (
          <Notice kind="error" className="mb-4">
            {errors.form}
          </Notice>
        ) : null}
        <Form method="post" className="space-y-5" noValidate key={actionData?.ok ? "sent" : "form"}>
          <TextArea
            label="Your feedback"
            name="content"
            rows={6}
            required
            maxLength={FEEDBACK_MAX_CHARS}
            defaultValue={values.content}
            error={errors.content}
            hint={`Up to ${FEEDBACK_MAX_CHARS} characters.`}
          />
          <fieldset aria-describedby={errors.rating ? "f-rating-error" : undefined}>
            <legend className={labelClass}>How do you like Atelier so far?</legend>
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
                  {r} {r === 1 ? "star" : "stars"}
                </label>
              ))}
            </div>
            {errors.rating ? <FieldError id="f-rating-error">{errors.rating}</FieldError> : null}
          </fieldset>
          <Button type="submit" disabled={busy}>
            <Send aria-hidden="true" />
            {busy ? "Sending…" : "Send feedback"}
          </Button>
        </Form>
      </div>
    </div>
  );
}
