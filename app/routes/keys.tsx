import { useState } from "react";
import { Form, useNavigation } from "react-router";
import { Field, Notice, PageHeader, TableScroll } from "~/components/ui";
import { WebhooksSection, type WebhookResult } from "~/components/webhooks-section";
import { webhookAction, webhooksForPage } from "~/domain/webhooks/page.server";
import { createApiKey, getApiKey, listApiKeys, MAX_ACTIVE_KEYS, revokeApiKey, type ApiKeyInfo } from "~/domain/api-keys/keys.server";
import { keyCreationPolicy } from "~/domain/rate-limits/policy.server";
import { isAppError } from "~/lib/errors";
import { ApiKeyCreateSchema, ApiKeyRevokeSchema, fieldErrors } from "~/lib/forms";
import { getServices } from "~/lib/services.server";
import { requireUiUser } from "~/lib/session.server";
import type { Route } from "./+types/keys";

export const meta: Route.MetaFunction = () => [{ title: "API keys — Atelier" }];

export async function loader({ request }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const { db } = getServices();
  const keys = await listApiKeys(db, user.id);
  // The confirmation step of a revoke is a page state (?revoke=<key_id>), so it works without JavaScript.
  const revokeId = new URL(request.url).searchParams.get("revoke");
  let confirm: ApiKeyInfo | null = null;
  if (revokeId) {
    try {
      const k = await getApiKey(db, user.id, revokeId);
      if (k.status === "active") confirm = k;
    } catch {
      confirm = null;
    }
  }
  return { keys, confirm, max: MAX_ACTIVE_KEYS, webhooks: await webhooksForPage(db, user.id) };
}

export async function action({ request }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const { db, clock, config } = getServices();
  const data = await request.formData();
  const form = Object.fromEntries(data);
  if (String(form.intent ?? "").startsWith("webhook-")) return webhookAction(user.id, data);
  try {
    if (form.intent === "create") {
      const parsed = ApiKeyCreateSchema.safeParse(form);
      if (!parsed.success) return { intent: "create" as const, errors: fieldErrors(parsed.error), values: { name: String(form.name ?? "") } };
      return { intent: "create" as const, created: await createApiKey(db, { userId: user.id, name: parsed.data.name }, clock, { creationLimit: keyCreationPolicy(config) }) };
    }
    if (form.intent === "revoke") {
      const parsed = ApiKeyRevokeSchema.safeParse(form);
      if (!parsed.success) return { intent: "revoke" as const, errors: { form: "Choose a key to revoke" } };
      const key = await getApiKey(db, user.id, parsed.data.key_id);
      await revokeApiKey(db, { userId: user.id, keyId: key.key_id }, clock);
      return { intent: "revoke" as const, revoked: key.name };
    }
    return { intent: "unknown" as const, errors: { form: "Unknown action" } };
  } catch (error) {
    if (isAppError(error)) return { intent: String(form.intent ?? ""), errors: { form: error.message }, values: { name: String(form.name ?? "") } };
    throw error;
  }
}

const fmt = (iso: string | null) => (iso ? new Date(iso).toUTCString() : "Never");

function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="btn-secondary"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
        } catch {
          setCopied(false);
        }
      }}
    >
      {copied ? "Copied" : "Copy"}
    </button>
  );
}

export default function Keys({ loaderData, actionData }: Route.ComponentProps) {
  const { keys, confirm, max, webhooks } = loaderData;
  const busy = useNavigation().state === "submitting";
  const result = actionData as
    | { intent: string; created?: { key: string; name: string }; revoked?: string; errors?: Record<string, string | undefined>; values?: { name: string } }
    | undefined;
  const active = keys.filter((k) => k.status === "active").length;
  const createErrors = result?.intent === "create" ? (result.errors ?? {}) : {};
  return (
    <div className="space-y-6">
      <PageHeader title="API keys">
        <p className="text-sm text-slate-600">
          {active} of {max} active keys
        </p>
      </PageHeader>

      {result?.created ? (
        <section className="card border-amber-300 bg-amber-50" aria-labelledby="new-key-h">
          <h2 id="new-key-h" className="text-lg font-semibold">
            Your new key “{result.created.name}”
          </h2>
          <Notice kind="info">Copy this key now. It is shown only once and cannot be retrieved later.</Notice>
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <label htmlFor="new-key" className="sr-only">
              New API key
            </label>
            <input id="new-key" readOnly value={result.created.key} className="input flex-1 font-mono" data-testid="new-key" onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={result.created.key} />
          </div>
          <p className="mt-3 text-sm text-slate-600">
            Use it as the <code>X-API-Key</code> header: <code className="break-all">curl -X POST …/api/get-user-info -H "X-API-Key: {result.created.key.slice(0, 8)}…"</code>
          </p>
        </section>
      ) : null}

      {result?.revoked ? <Notice kind="success">Key “{result.revoked}” was revoked. Requests with it are now rejected.</Notice> : null}
      {result?.intent === "revoke" && result.errors?.form ? <Notice kind="error">{result.errors.form}</Notice> : null}

      {confirm && !result?.revoked ? (
        <section className="card border-red-300" aria-labelledby="confirm-h" role="alertdialog" aria-describedby="confirm-d">
          <h2 id="confirm-h" className="text-lg font-semibold">
            Revoke “{confirm.name}”?
          </h2>
          <p id="confirm-d" className="mt-2 text-sm text-slate-700">
            Programs using <code>{confirm.start}…</code> will be rejected at once. Revocation cannot be undone; you would have to create a new
            key.
          </p>
          <Form method="post" action="/keys" className="mt-4 flex gap-2">
            <input type="hidden" name="intent" value="revoke" />
            <input type="hidden" name="key_id" value={confirm.key_id} />
            <button type="submit" className="btn-danger" disabled={busy}>
              Yes, revoke key
            </button>
            <a href="/keys" className="btn-secondary">
              Cancel
            </a>
          </Form>
        </section>
      ) : null}

      <section className="card" aria-labelledby="create-h">
        <h2 id="create-h" className="text-lg font-semibold">
          Create a key
        </h2>
        <Form method="post" action="/keys" className="mt-4 flex flex-wrap items-end gap-3" noValidate key={result?.created ? result.created.key : "create"}>
          <input type="hidden" name="intent" value="create" />
          <div className="min-w-0 flex-1 basis-64">
            <Field
              label="Key name"
              name="name"
              required
              maxLength={100}
              hint="A label to recognise it, e.g. “build server”."
              defaultValue={result?.intent === "create" && !result.created ? result.values?.name : undefined}
              error={createErrors.name}
            />
          </div>
          <button type="submit" className="btn-primary" disabled={busy}>
            Create key
          </button>
        </Form>
        {createErrors.form ? (
          <div className="mt-3">
            <Notice kind="error">{createErrors.form}</Notice>
          </div>
        ) : null}
      </section>

      <section className="card" aria-labelledby="list-h">
        <h2 id="list-h" className="text-lg font-semibold">
          Your keys
        </h2>
        {keys.length === 0 ? (
          <p className="mt-3 text-sm text-slate-600">No keys yet.</p>
        ) : (
          <TableScroll label="Your keys table" className="mt-3">
            <table className="w-full text-left text-sm">
              <thead>
                <tr className="border-b border-slate-200 text-slate-500">
                  <th scope="col" className="py-2 pr-4 font-medium">Name</th>
                  <th scope="col" className="py-2 pr-4 font-medium">Key</th>
                  <th scope="col" className="py-2 pr-4 font-medium">Created</th>
                  <th scope="col" className="py-2 pr-4 font-medium">Last used</th>
                  <th scope="col" className="py-2 pr-4 font-medium">Status</th>
                  <th scope="col" className="py-2 font-medium"><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {keys.map((k) => (
                  <tr key={k.key_id} className="border-b border-slate-100" data-key-id={k.key_id}>
                    <td className="py-2 pr-4 font-medium">{k.name}</td>
                    <td className="py-2 pr-4 font-mono">{k.start}…</td>
                    <td className="py-2 pr-4">{fmt(k.created_at)}</td>
                    <td className="py-2 pr-4" data-field="last-used">{fmt(k.last_used_at)}</td>
                    <td className="py-2 pr-4">
                      <span
                        data-field="status"
                        className={`rounded-full px-2 py-0.5 text-xs font-medium ${k.status === "active" ? "bg-emerald-100 text-emerald-900" : "bg-slate-200 text-slate-700"}`}
                      >
                        {k.status}
                      </span>
                    </td>
                    <td className="py-2 text-right">
                      {k.status === "active" ? (
                        <a href={`/keys?revoke=${encodeURIComponent(k.key_id)}`} className="btn-secondary" aria-label={`Revoke ${k.name}`}>
                          Revoke
                        </a>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>

      <WebhooksSection webhooks={webhooks} result={result?.intent.startsWith("webhook-") ? (result as WebhookResult) : undefined} busy={busy} />
    </div>
  );
}
