/**
 * The user center's Webhooks section (DESIGN §10), shown on the API keys
 * page: endpoints with their status (and why one was disabled), a form to add
 * one, rotate and delete. Plain forms: it works without JavaScript.
 */
import { Form } from "react-router";
import { WEBHOOK_EVENTS } from "~/domain/webhooks/events";
import { Field, Notice, TableScroll } from "./ui";

export interface WebhookItem {
  webhook_id: string;
  url: string;
  events: string[];
  description: string;
  status: "active" | "disabled";
  disabled_reason: string | null;
  created_at: string;
  last_delivery: { status: string; response_status: number | null; at: string | null } | null;
}

export interface WebhookResult {
  intent: string;
  secret?: { url: string; secret: string; rotated: boolean };
  deleted?: string;
  errors?: Record<string, string | undefined>;
  values?: { url: string; description: string };
}

export function WebhooksSection({ webhooks, result, busy }: { webhooks: WebhookItem[]; result?: WebhookResult; busy: boolean }) {
  const errors = result?.intent === "webhook-create" ? (result.errors ?? {}) : {};
  return (
    <section id="webhooks" className="card space-y-4" aria-labelledby="webhooks-h">
      <div>
        <h2 id="webhooks-h" className="text-lg font-semibold">
          Webhooks
        </h2>
        <p className="mt-1 text-sm text-muted-foreground">
          Atelier POSTs <code>generation.completed</code> and <code>generation.failed</code> to your URL, signed per{" "}
          <a className="link" href="https://www.standardwebhooks.com/">Standard Webhooks</a>. See <a className="link" href="/docs#events">the docs</a> for
          verifying signatures.
        </p>
      </div>

      {result?.secret ? (
        <div className="rounded-md border border-border bg-warning-soft p-3" role="status">
          <p className="text-sm font-medium">
            {result.secret.rotated ? "New signing secret" : "Signing secret"} for {result.secret.url}
          </p>
          <Notice kind="info">Copy it now: it is shown only once.{result.secret.rotated ? " The old secret keeps signing for 24 hours." : ""}</Notice>
          <label htmlFor="webhook-secret" className="sr-only">
            Webhook secret
          </label>
          <input id="webhook-secret" readOnly value={result.secret.secret} className="input mt-2 w-full font-mono" data-testid="webhook-secret" />
        </div>
      ) : null}
      {result?.deleted ? <Notice kind="success">Webhook {result.deleted} deleted.</Notice> : null}
      {result?.intent !== "webhook-create" && result?.errors?.form ? <Notice kind="error">{result.errors.form}</Notice> : null}

      <Form method="post" action="/keys#webhooks" className="flex flex-wrap items-end gap-3" noValidate key={result?.secret?.secret ?? "webhook-create"}>
        <input type="hidden" name="intent" value="webhook-create" />
        <div className="min-w-0 flex-1 basis-72">
          <Field label="Endpoint URL" name="url" type="url" required placeholder="https://example.com/atelier-webhooks" defaultValue={result?.values?.url} error={errors.url} />
        </div>
        <div className="min-w-0 flex-1 basis-48">
          <Field label="Description" name="description" maxLength={200} defaultValue={result?.values?.description} />
        </div>
        <fieldset className="text-sm">
          <legend className="font-medium">Events</legend>
          {WEBHOOK_EVENTS.map((e) => (
            <label key={e} className="mr-3 inline-flex items-center gap-1">
              <input type="checkbox" name="events" value={e} defaultChecked /> <code>{e}</code>
            </label>
          ))}
        </fieldset>
        <button type="submit" className="btn-primary" disabled={busy}>
          Add webhook
        </button>
      </Form>
      {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}

      {webhooks.length === 0 ? (
        <p className="text-sm text-muted-foreground">No webhooks yet.</p>
      ) : (
        <TableScroll label="Your webhooks table">
          <table className="w-full text-left text-sm">
            <thead>
              <tr className="border-b border-border text-muted-foreground">
                <th scope="col" className="py-2 pr-4 font-medium">URL</th>
                <th scope="col" className="py-2 pr-4 font-medium">Events</th>
                <th scope="col" className="py-2 pr-4 font-medium">Status</th>
                <th scope="col" className="py-2 pr-4 font-medium">Last delivery</th>
                <th scope="col" className="py-2 font-medium"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {webhooks.map((w) => (
                <tr key={w.webhook_id} className="border-b border-border align-top" data-webhook-id={w.webhook_id}>
                  <td className="max-w-xs min-w-48 py-2 pr-4 break-all">
                    <span className="font-mono">{w.url}</span>
                    {w.description ? <span className="block text-muted-foreground">{w.description}</span> : null}
                  </td>
                  <td className="py-2 pr-4">{w.events.join(", ")}</td>
                  <td className="py-2 pr-4">
                    <span
                      data-field="status"
                      className={`rounded-full px-2 py-0.5 text-xs font-medium ${w.status === "active" ? "bg-success-soft text-success-soft-foreground" : "bg-danger-soft text-danger-soft-foreground"}`}
                    >
                      {w.status}
                    </span>
                    {w.disabled_reason ? <span className="mt-1 block text-xs text-danger-soft-foreground" data-field="reason">{w.disabled_reason}</span> : null}
                  </td>
                  <td className="py-2 pr-4">
                    {w.last_delivery
                      ? `${w.last_delivery.status}${w.last_delivery.response_status ? ` (HTTP ${w.last_delivery.response_status})` : ""}`
                      : "None yet"}
                  </td>
                  <td className="py-2 text-right whitespace-nowrap">
                    <Form method="post" action="/keys#webhooks" className="inline">
                      <input type="hidden" name="webhook_id" value={w.webhook_id} />
                      <button type="submit" name="intent" value="webhook-rotate" className="btn-secondary" disabled={busy} aria-label={`Rotate the secret of ${w.url}`}>
                        Rotate secret
                      </button>{" "}
                      <button type="submit" name="intent" value="webhook-delete" className="btn-secondary" disabled={busy} aria-label={`Delete ${w.url}`}>
                        Delete
                      </button>
                    </Form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
