/**
 * The user center's Webhooks section (docs/design.md §10), shown on the API keys
 * page: endpoints with their status (and why one was disabled), a form to add
 * one, rotate and delete. Plain forms: it works without JavaScript.
 */
import { RefreshCw, Send, Trash2, Webhook } from "lucide-react";
import type { ReactNode } from "react";
import { Form } from "react-router";
import { WEBHOOK_EVENTS } from "~/domain/webhooks/events";
import {
  Badge,
  Button,
  Card,
  CopyButton,
  cn,
  DataTable,
  EmptyState,
  Field,
  FieldError,
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
  deliveries: DeliveryItem[];
}

export interface DeliveryItem {
  delivery_id: string;
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  response_status: number | null;
  duration_ms: number | null;
  last_error: string | null;
  created_at: string;
  last_attempt_at: string | null;
}

export interface WebhookResult {
  intent: string;
  webhookId?: string;
  tested?: string;
  resent?: string;
  updated?: string;
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
        {result?.intent !== "webhook-create" && !result?.webhookId && result?.errors?.form ? (
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
            <EventChoices checked={() => true} />
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
              <WebhookRow
                key={w.webhook_id}
                w={w}
                result={result?.webhookId === w.webhook_id ? result : undefined}
                busy={busy}
              />
            ))}
          </RowList>
        )}
      </Card>
    </div>
  );
}

/** The event checkboxes of the create form and of each endpoint's filter, checked as `checked` says. */
function EventChoices({ checked }: { checked: (event: string) => boolean }) {
  return (
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
            defaultChecked={checked(e)}
            className="size-4 accent-[var(--primary)]"
          />{" "}
          <code className="text-xs">{e}</code>
        </label>
      ))}
    </div>
  );
}

/** A notice under an endpoint's row, shown when `show` is set. */
function RowNotice({ kind, show, children }: { kind: "success" | "error"; show: unknown; children: ReactNode }) {
  if (!show) return null;
  return (
    <div className="mt-2">
      <Notice kind={kind}>{children}</Notice>
    </div>
  );
}

const STATUS_TONE = { delivered: "success", failed: "danger", pending: "warning" } as const;
const when = (at: string | null) => (at ? `${at.slice(0, 16).replace("T", " ")} UTC` : "—");

/** One endpoint: its actions, its event filter (editable) and its recent delivery log with Resend buttons. */
function WebhookRow({ w, result, busy }: { w: WebhookItem; result?: WebhookResult; busy: boolean }) {
  const errors = result?.errors ?? {};
  const filterId = `events-${w.webhook_id}`;
  return (
    <Row
      data-webhook-id={w.webhook_id}
      textClassName="basis-64"
      below={
        <>
          <RowNotice kind="success" show={result?.tested}>
            Test event queued for {result?.tested}. It shows in the delivery log below once it is sent.
          </RowNotice>
          <RowNotice kind="success" show={result?.resent}>
            Delivery queued again with the same webhook-id.
          </RowNotice>
          <RowNotice kind="success" show={result?.updated}>
            Events saved for {result?.updated}.
          </RowNotice>
          <RowNotice kind="error" show={errors.form}>
            {errors.form}
          </RowNotice>
          <details className="mt-2" open={Boolean(result)}>
            <summary className="cursor-pointer text-sm text-muted-foreground hover:text-foreground">
              Events and delivery log ({w.deliveries.length})
            </summary>
            <Form method="post" action="/keys#webhooks" className="mt-3 flex flex-wrap items-end gap-3" noValidate>
              <input type="hidden" name="webhook_id" value={w.webhook_id} />
              <fieldset
                className="text-sm"
                aria-invalid={errors.events ? true : undefined}
                aria-describedby={errors.events ? `${filterId}-error` : undefined}
              >
                <legend className={labelClass}>Events this endpoint receives</legend>
                <EventChoices checked={(e) => w.events.includes(e)} />
                {errors.events ? <FieldError id={`${filterId}-error`}>{errors.events}</FieldError> : null}
              </fieldset>
              <Button type="submit" name="intent" value="webhook-events" variant="secondary" size="sm" disabled={busy}>
                Save events
              </Button>
            </Form>
            <DeliveryLog w={w} busy={busy} />
          </details>
        </>
      }
      title={
        <>
          <span className="font-mono text-sm break-all">{w.url}</span>
          <Badge status={w.status} tone={w.status === "active" ? "success" : "danger"} data-field="status">
            {w.status}
          </Badge>
        </>
      }
      actions={
        <Form method="post" action="/keys#webhooks" className="flex flex-wrap gap-2">
          <input type="hidden" name="webhook_id" value={w.webhook_id} />
          <Button
            type="submit"
            name="intent"
            value="webhook-test"
            variant="secondary"
            size="sm"
            disabled={busy}
            aria-label={`Send test event to ${w.url}`}
          >
            <Send aria-hidden="true" /> Send test event
          </Button>
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
  );
}

function DeliveryLog({ w, busy }: { w: WebhookItem; busy: boolean }) {
  return (
    <DataTable
      label={`Recent deliveries to ${w.url}`}
      className="mt-3"
      testId="delivery-log"
      rows={w.deliveries}
      rowKey={(d) => d.delivery_id}
      empty={<p className="mt-3 text-sm text-muted-foreground">No deliveries yet. Send a test event to try it.</p>}
      columns={[
        { header: "Event", cell: (d) => <code className="text-xs">{d.type}</code> },
        {
          header: "Status",
          cell: (d) => (
            <Badge tone={STATUS_TONE[d.status]} data-field="delivery-status">
              {d.status}
            </Badge>
          ),
        },
        {
          header: "HTTP",
          cell: (d) => <span data-field="http-status">{d.response_status ?? "—"}</span>,
          className: "tabular-nums",
        },
        {
          header: "Duration",
          cell: (d) => (d.duration_ms === null ? "—" : `${d.duration_ms} ms`),
          className: "tabular-nums",
        },
        { header: "Last attempt", cell: (d) => when(d.last_attempt_at ?? d.created_at) },
        {
          header: "",
          cell: (d) => (
            <Form method="post" action="/keys#webhooks">
              <input type="hidden" name="webhook_id" value={w.webhook_id} />
              <input type="hidden" name="delivery_id" value={d.delivery_id} />
              <Button
                type="submit"
                name="intent"
                value="webhook-resend"
                variant="secondary"
                size="sm"
                disabled={busy}
                aria-label={`Resend ${d.type} delivery of ${when(d.created_at)}`}
              >
                Resend
              </Button>
            </Form>
          ),
        },
      ]}
    />
  );
}
