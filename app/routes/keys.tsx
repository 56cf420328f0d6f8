import { KeyRound } from "lucide-react";
import { Form, useNavigation } from "react-router";
import { KeyLimitsFields, KeyRow } from "~/components/api-keys";
import { Code } from "~/components/docs";
import {
  Button,
  buttonVariants,
  Card,
  CopyButton,
  EmptyState,
  Field,
  Notice,
  PageHeader,
  RowList,
} from "~/components/ui";
import { type WebhookResult, WebhooksSection } from "~/components/webhooks-section";
import {
  type ApiKeyInfo,
  createApiKey,
  getApiKey,
  listApiKeys,
  MAX_ACTIVE_KEYS,
  REVOKED_KEYS_LISTED_DAYS,
  revokeApiKey,
  updateApiKey,
} from "~/domain/api-keys/keys.server";
import { KEY_SCOPES } from "~/domain/api-keys/scopes";
import { keyCreationPolicy } from "~/domain/rate-limits/policy.server";
import { webhookAction, webhooksForPage } from "~/domain/webhooks/page.server";
import { ApiKeyCreateSchema, ApiKeyRevokeSchema, fieldErrors, parseKeyLimits } from "~/http/forms";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import type { Route } from "./+types/keys";

export const meta: Route.MetaFunction = () => [{ title: "API keys — Atelier" }];

export async function loader({ request }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const { db, clock } = getServices();
  const keys = await listApiKeys(db, user.id, clock);
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
  return {
    keys,
    confirm,
    max: MAX_ACTIVE_KEYS,
    revokedDays: REVOKED_KEYS_LISTED_DAYS,
    publicUrl: getServices().config.publicUrl,
    webhooks: await webhooksForPage({ db }, user.id),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const { db, clock, config } = getServices();
  const data = await request.formData();
  const form = Object.fromEntries(data);
  if (String(form.intent ?? "").startsWith("webhook-"))
    return webhookAction({ db, clock, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }, user.id, {
      intent: String(data.get("intent")),
      url: String(data.get("url") ?? ""),
      description: String(data.get("description") ?? ""),
      events: data.getAll("events").map(String),
      webhookId: String(data.get("webhook_id") ?? ""),
      deliveryId: String(data.get("delivery_id") ?? ""),
    });
  const limits = parseKeyLimits({
    scopes: data.getAll("scopes").map(String),
    capCredits: String(form.cap_credits ?? ""),
    capPeriod: String(form.cap_period ?? ""),
  });
  try {
    if (form.intent === "create") {
      const parsed = ApiKeyCreateSchema.safeParse(form);
      if (!parsed.success || !limits.ok)
        return {
          intent: "create" as const,
          errors: { ...(parsed.success ? {} : fieldErrors(parsed.error)), ...(limits.ok ? {} : limits.errors) },
          values: { name: String(form.name ?? "") },
        };
      return {
        intent: "create" as const,
        created: await createApiKey(
          db,
          { userId: user.id, name: parsed.data.name, scopes: limits.scopes, creditLimit: limits.creditLimit },
          clock,
          { creationLimit: keyCreationPolicy(config) },
        ),
      };
    }
    if (form.intent === "update") {
      const parsed = ApiKeyRevokeSchema.safeParse(form);
      if (!parsed.success) return { intent: "update" as const, errors: { form: "Choose a key to change." } };
      if (!limits.ok) return { intent: "update" as const, keyId: parsed.data.key_id, errors: limits.errors };
      await updateApiKey(
        db,
        { userId: user.id, keyId: parsed.data.key_id, scopes: limits.scopes, creditLimit: limits.creditLimit },
        clock,
      );
      return { intent: "update" as const, keyId: parsed.data.key_id, saved: true };
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
    if (isAppError(error))
      return {
        intent: String(form.intent ?? ""),
        errors: { form: error.message },
        values: { name: String(form.name ?? "") },
      };
    throw error;
  }
}

/** A request that works when pasted into a terminal as it is. */
const curl = (origin: string, key: string) =>
  `curl -X POST ${origin}/api/get-user-credits \\\n  -H "X-API-Key: ${key}"`;

export default function Keys({ loaderData, actionData }: Route.ComponentProps) {
  const { keys, confirm, max, revokedDays, publicUrl, webhooks } = loaderData;
  const busy = useNavigation().state === "submitting";
  const result = actionData as
    | {
        intent: string;
        created?: { key: string; name: string };
        revoked?: string;
        keyId?: string;
        saved?: boolean;
        errors?: Record<string, string | undefined>;
        values?: { name: string };
      }
    | undefined;
  const activeKeys = keys.filter((k) => k.status === "active");
  const revokedKeys = keys.filter((k) => k.status === "revoked");
  const createErrors = result?.intent === "create" ? (result.errors ?? {}) : {};
  return (
    <div className="space-y-6">
      <PageHeader title="API keys">
        <p className="text-sm text-muted-foreground">
          {activeKeys.length} of {max} active keys
        </p>
      </PageHeader>

      {result?.created ? (
        <Card title={`Your new key “${result.created.name}”`} id="new-key" className="border-primary/40">
          <Notice kind="info">Copy this key now. It is shown only once and cannot be retrieved later.</Notice>
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <label htmlFor="new-key" className="sr-only">
              New API key
            </label>
            <input
              id="new-key"
              readOnly
              value={result.created.key}
              className="block min-w-0 flex-1 rounded-xl border border-input bg-muted px-3 py-2 font-mono text-sm"
              data-testid="new-key"
              onFocus={(e) => e.currentTarget.select()}
            />
            <CopyButton text={result.created.key} label="Copy key" />
          </div>
          <p className="mt-4 text-sm text-muted-foreground">Try it — paste this into a terminal:</p>
          <div className="mt-2">
            <Code label="Example request">{curl(publicUrl, result.created.key)}</Code>
          </div>
        </Card>
      ) : null}

      {result?.revoked ? (
        <Notice kind="success">Key “{result.revoked}” was revoked. Requests with it are now rejected.</Notice>
      ) : null}
      {(result?.intent === "revoke" || result?.intent === "update") && result.errors?.form ? (
        <Notice kind="error">{result.errors.form}</Notice>
      ) : null}

      {confirm && !result?.revoked ? (
        <Card
          title={`Revoke “${confirm.name}”?`}
          id="confirm"
          className="border-danger/40"
          role="alertdialog"
          aria-describedby="confirm-d"
        >
          <p id="confirm-d" className="text-sm text-muted-foreground">
            Programs using <code>{confirm.start}…</code> will be rejected at once. Revocation cannot be undone; you
            would have to create a new key.
          </p>
          <Form method="post" action="/keys" className="mt-4 flex gap-2">
            <input type="hidden" name="intent" value="revoke" />
            <input type="hidden" name="key_id" value={confirm.key_id} />
            <Button type="submit" variant="danger" disabled={busy}>
              Yes, revoke key
            </Button>
            <a href="/keys" className={buttonVariants({ variant: "secondary" })}>
              Cancel
            </a>
          </Form>
        </Card>
      ) : null}

      <Card title="Create a key" id="create">
        <Form
          method="post"
          action="/keys"
          className="flex flex-wrap items-end gap-3"
          noValidate
          key={result?.created ? result.created.key : "create"}
        >
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
          <div className="w-full">
            <KeyLimitsFields prefix="create" scopes={KEY_SCOPES} cap={null} errors={createErrors} />
          </div>
          <Button type="submit" disabled={busy}>
            Create key
          </Button>
        </Form>
        {createErrors.form ? (
          <div className="mt-3">
            <Notice kind="error">{createErrors.form}</Notice>
          </div>
        ) : null}
      </Card>

      <Card title="Your keys" id="list">
        {activeKeys.length === 0 ? (
          <EmptyState title={revokedKeys.length ? "No active keys" : "No keys yet"} icon={<KeyRound />}>
            Create one above to call the API from your programs.
          </EmptyState>
        ) : (
          <RowList label="Your keys">
            {activeKeys.map((k) => (
              <KeyRow
                key={k.key_id}
                k={k}
                busy={busy}
                edit={result?.intent === "update" && result.keyId === k.key_id ? result : undefined}
              />
            ))}
          </RowList>
        )}
        {revokedKeys.length ? (
          <details className="mt-4 border-t border-border pt-3" open={Boolean(result?.revoked)}>
            <summary className="cursor-pointer text-sm text-muted-foreground hover:text-foreground">
              Revoked in the last {revokedDays} days ({revokedKeys.length})
            </summary>
            <p className="mt-2 text-xs text-muted-foreground">
              They never work again; each one drops off this list {revokedDays} days after its revocation.
            </p>
            <RowList label="Revoked keys">
              {revokedKeys.map((k) => (
                <KeyRow key={k.key_id} k={k} busy={busy} />
              ))}
            </RowList>
          </details>
        ) : null}
      </Card>

      <WebhooksSection
        webhooks={webhooks}
        result={result?.intent.startsWith("webhook-") ? (result as WebhookResult) : undefined}
        busy={busy}
      />
    </div>
  );
}
