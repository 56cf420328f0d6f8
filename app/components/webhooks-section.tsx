/**
 * The user center's Webhooks section (docs/design.md §10), shown on the API keys
 * page: endpoints with their status (and why one was disabled), a form to add
 * one, rotate and delete. Plain forms: it works without JavaScript.
 */
import { RefreshCw, Trash2, Webhook } from "lucide-react";
import { Form } from "react-router";
import { WEBHOOK_EVENTS } from "~/domain/webhooks/events";
import {
  Badge,
  Button,
  Card,
  CopyButton,
  cn,
  EmptyState,
  Field,
  inputClass,
  labelClass,
  Notice,
  Row,
  RowList,
} from "./ui";

export interface WebhookItem {
  webhook_id: string;
  url: string;
  events: string[];
  description: string;
  status: "active" | "disabled";
  disabled_reason: string | null;
  created_at: string;
  last_delivery: {
    status: string;
    response_status: number | null;
    at: string | null;
  } | null;
}

export interface WebhookResult {
  intent: string;
  secret?: { url: string; secret: string; rotated: boolean };
  deleted?: string;
  errors?: Record<string, string | undefined>;
  values?: { url: string; description: string };
}

export function WebhooksSection({
  webhooks,
  result,
  busy,
}: {
  webhooks: WebhookItem[];
  result?: WebhookResult;
  busy: boolean;
}) {
  const errors = result?.intent === "webhook-create" ? (result.errors ?? {}) : {};
  return (
    // The anchor of `/keys#webhooks` (forms post back to it).
    <div id="webhooks" className="scroll-mt-20">
      <Card
        title="Webhooks"
        id="webhooks-section"
        className="space-y-4"
        description={
          <>
            Atelier POSTs <code>generation.completed</code> and <code>generation.failed</code> to your URL, signed per{" "}
            <a className="link" href="https://www.standardwebhooks.com/">
              Standard Webhooks
            </a>
            . See{" "}
            <a className="link" href="/docs#events">
              the docs
            </a>{" "}
            for verifying signatures.
          </>
        }
      >
        {result?.secret ? (
          <div
            className="space-y-3 rounded-2xl border border-warning-soft-foreground/30 bg-warning-soft p-4 text-warning-soft-foreground"
            role="status"
          >
            <p className="text-sm font-semibold break-all">
              {result.secret.rotated ? "New signing secret" : "Signing secret"} for {result.secret.url}
            </p>
            <p className="text-sm">
              Copy it now: it is shown only once.
              {result.secret.rotated ? " The old secret keeps signing for 24 hours." : ""}
            </p>
            <div className="flex flex-wrap items-center gap-2">
              <label htmlFor="webhook-secret" className="sr-only">
                Webhook secret
              </label>
              <input
                id="webhook-secret"
                readOnly
                value={result.secret.secret}
                className={cn(inputClass, "min-w-0 flex-1 basis-56 font-mono")}
                data-testid="webhook-secret"
              />
              <CopyButton text={result.secret.secret} />
            </div>
          </div>
        ) : null}
        {result?.deleted ? <Notice kind="success">Webhook {result.deleted} deleted.</Notice> : null}
        {result?.intent !== "webhook-create" && result?.errors?.form ? (
          <Notice kind="error">{result.errors.form}</Notice>
        ) : null}

        <Form
          method="post"
          action="/keys#webhooks"
          className="flex flex-wrap items-end gap-3"
          noValidate
          key={result?.secret?.secret ?? "webhook-create"}
        >
          <input type="hidden" name="intent" value="webhook-create" />
          <div className="min-w-0 flex-1 basis-72">
            <Field
              label="Endpoint URL"
              name="url"
              type="url"
              required
              placeholder="https://example.com/atelier-webhooks"
              defaultValue={result?.values?.url}
              error={errors.url}
            />
          </div>
          <div className="min-w-0 flex-1 basis-48">
            <Field label="Description" name="description" maxLength={200} defaultValue={result?.values?.description} />
          </div>
          <fieldset className="text-sm">
            <legend className={labelClass}>Events</legend>
            <div className="mt-1.5 flex flex-wrap gap-2">
              {WEBHOOK_EVENTS.map((e) => (
                <label
                  key={e}
                  className="inline-flex items-center gap-2 rounded-full border border-border px-3 py-1.5 has-[:checked]:border-primary has-[:checked]:bg-accent-soft"
                >
                  <input
                    type="checkbox"
                    name="events"
                    value={e}
                    defaultChecked
                    className="size-4 accent-[var(--primary)]"
                  />{" "}
                  <code className="text-xs">{e}</code>
                </label>
              ))}
            </div>
          </fieldset>
          <Button type="submit" disabled={busy}>
            Add webhook
          </Button>
        </Form>
        {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}

        {webhooks.length === 0 ? (
          <EmptyState title="No webhooks yet" icon={<Webhook />}>
            Add an endpoint above to hear about finished generations without polling.
          </EmptyState>
        ) : (
          <RowList label="Your webhooks">
            {webhooks.map((w) => (
              <Row
                key={w.webhook_id}
                data-webhook-id={w.webhook_id}
                textClassName="basis-64"
                title={
                  <>
                    <span className="font-mono text-sm break-all">{w.url}</span>
                    <Badge status={w.status} tone={w.status === "active" ? "success" : "danger"} data-field="status">
                      {w.status}
                    </Badge>
                  </>
                }
                actions={
                  <Form method="post" action="/keys#webhooks" className="flex gap-2">
                    <input type="hidden" name="webhook_id" value={w.webhook_id} />
                    <Button
                      type="submit"
                      name="intent"
                      value="webhook-rotate"
                      variant="secondary"
                      size="sm"
                      disabled={busy}
                      aria-label={`Rotate secret of ${w.url}`}
                    >
                      <RefreshCw aria-hidden="true" /> Rotate secret
                    </Button>
                    <Button
                      type="submit"
                      name="intent"
                      value="webhook-delete"
                      variant="secondary"
                      size="sm"
                      disabled={busy}
                      aria-label={`Delete ${w.url}`}
                    >
                      <Trash2 aria-hidden="true" /> Delete
                    </Button>
                  </Form>
                }
              >
                {w.description ? <p className="text-sm text-muted-foreground">{w.description}</p> : null}
                {w.disabled_reason ? (
                  <p className="mt-0.5 text-xs text-danger-soft-foreground" data-field="reason">
                    {w.disabled_reason}
                  </p>
                ) : null}
                <p className="mt-0.5 text-xs text-muted-foreground">
                  {w.events.join(", ")} · Last delivery:{" "}
                  {w.last_delivery
                    ? `${w.last_delivery.status}${w.last_delivery.response_status ? ` (HTTP ${w.last_delivery.response_status})` : ""}`
                    : "none yet"}
                </p>
              </Row>
            ))}
          </RowList>
        )}
      </Card>
    </div>
  );
}
