/**
 * The account page's "Your data" card (docs/privacy.md): download everything as JSON, or delete the account.
 * Both are plain form posts, so they work without JavaScript; the download is a native form (a file, not a page).
 */
import { Download, Trash2 } from "lucide-react";
import { Form } from "react-router";
import { Button, Card, Field, Notice } from "~/components/ui";

export function YourData({
  email,
  hasPassword,
  error,
  busy,
}: {
  email: string;
  hasPassword: boolean;
  error?: string;
  busy: boolean;
}) {
  return (
    <Card
      title="Your data"
      id="your-data"
      anchor
      description="Take a copy of everything this account holds, or delete the account."
    >
      <form method="post" action="/account/export" className="flex flex-wrap items-center gap-3">
        <p className="min-w-0 flex-1 basis-64 text-sm text-muted-foreground">
          A JSON file with your profile, sign-in methods, credit history, generations with prompts and result links, API
          keys (names and dates, never the keys), webhooks, orders and feedback.
        </p>
        <Button type="submit" variant="secondary">
          <Download aria-hidden="true" /> Download my data
        </Button>
      </form>

      <Form method="post" className="mt-6 space-y-4 border-t border-border pt-5" noValidate>
        <input type="hidden" name="intent" value="delete-account" />
        <div>
          <h3 className="text-sm font-semibold text-danger-soft-foreground">Delete account</h3>
          <p className="mt-1 text-sm text-muted-foreground">
            Signs you out everywhere, revokes your API keys and webhooks, cancels your subscription and unfinished
            tasks, and deletes your prompts, results and feedback. Orders and the credit ledger are kept without your
            name or address, as the law asks of the operator. This cannot be undone.
          </p>
        </div>
        {error ? <Notice kind="error">{error}</Notice> : null}
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <Field
            id="delete-confirm"
            label={`Type your e-mail (${email}) to confirm`}
            name="confirm"
            type="email"
            autoComplete="off"
            required
          />
          {hasPassword ? (
            <Field
              id="delete-password"
              label="Password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
            />
          ) : (
            <p className="self-end text-sm text-muted-foreground">
              Your account has no password: sign in again, then delete it within 10 minutes.
            </p>
          )}
        </div>
        <Button type="submit" variant="danger" disabled={busy}>
          <Trash2 aria-hidden="true" /> Delete my account
        </Button>
      </Form>
    </Card>
  );
}
