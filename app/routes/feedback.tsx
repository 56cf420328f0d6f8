import { Form, useNavigation } from "react-router";
import { Notice, PageHeader } from "~/components/ui";
import { UI_MESSAGES } from "~/domain/account/messages";
import { addFeedback } from "~/domain/feedback/feedback.server";
import { FEEDBACK_MAX_CHARS, FeedbackFormSchema, fieldErrors } from "~/lib/forms";
import { getServices } from "~/lib/services.server";
import { requireUiUser } from "~/lib/session.server";
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
    return { ok: false, errors: fieldErrors(parsed.error), values: { content: String(form.content ?? ""), rating: String(form.rating ?? "") } };
  }
  const { db, clock } = getServices();
  await addFeedback(db, user.id, parsed.data, clock);
  return { ok: true, errors: {}, values: { content: "", rating: "" } };
}

const RATINGS = [1, 2, 3, 4, 5];

export default function Feedback({ actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const errors = actionData?.errors ?? {};
  const values = actionData?.values ?? { content: "", rating: "" };
  return (
    <div className="mx-auto max-w-2xl">
      <PageHeader title="Feedback" />
      <div className="card">
        {actionData?.ok ? <Notice kind="success">{UI_MESSAGES.FEEDBACK_SENT}</Notice> : null}
        <Form method="post" className="mt-2 space-y-4" noValidate key={actionData?.ok ? "sent" : "form"}>
          <div>
            <label htmlFor="f-content" className="label">
              Your feedback
            </label>
            <textarea
              id="f-content"
              name="content"
              rows={6}
              required
              maxLength={FEEDBACK_MAX_CHARS}
              defaultValue={values.content}
              className="input mt-1"
              aria-invalid={errors.content ? true : undefined}
              aria-describedby={errors.content ? "f-content-error" : "f-content-hint"}
            />
            {errors.content ? (
              <p id="f-content-error" className="field-error" role="alert">
                {errors.content}
              </p>
            ) : (
              <p id="f-content-hint" className="mt-1 text-sm text-slate-500">
                Up to {FEEDBACK_MAX_CHARS} characters.
              </p>
            )}
          </div>
          <fieldset aria-invalid={errors.rating ? true : undefined} aria-describedby={errors.rating ? "f-rating-error" : undefined}>
            <legend className="label">Rating</legend>
            <div className="mt-2 flex gap-4">
              {RATINGS.map((r) => (
                <label key={r} className="flex items-center gap-1 text-sm">
                  <input type="radio" name="rating" value={r} defaultChecked={values.rating === String(r)} required />
                  {r} {r === 1 ? "star" : "stars"}
                </label>
              ))}
            </div>
            {errors.rating ? (
              <p id="f-rating-error" className="field-error" role="alert">
                {errors.rating}
              </p>
            ) : null}
          </fieldset>
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? "Sending…" : "Send feedback"}
          </button>
        </Form>
      </div>
    </div>
  );
}
