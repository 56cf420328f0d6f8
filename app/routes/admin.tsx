import { Ban, Coins, CreditCard, RotateCcw, Search, Star } from "lucide-react";
import type { ReactNode } from "react";
import { data, Form, Link, useNavigation } from "react-router";
import { DashboardSection } from "~/components/admin/dashboard";
import { GenerationList } from "~/components/admin/generation-list";
import {
  Badge,
  Button,
  buttonVariants,
  Card,
  EmptyState,
  Field,
  formatDate,
  inputClass,
  Notice,
  PageHeader,
  Pagination,
  Select,
  Stat,
} from "~/components/ui";
import {
  adminCreateSubscription,
  adminGrantCredits,
  adminListUsers,
  CreateSubscriptionSchema,
  GrantCreditsSchema,
} from "~/domain/admin/admin.server";
import { loadDashboard, parseRange } from "~/domain/admin/dashboard.server";
import { providerCostCents } from "~/domain/admin/provider-cost.server";
import { listFeedback } from "~/domain/feedback/feedback.server";
import { listLatestAll } from "~/domain/generations/admin.server";
import { parseResultUrls } from "~/domain/generations/views.server";
import { listAlerts } from "~/domain/ops/alerts.server";
import { INTERVALS } from "~/domain/subscriptions/subscriptions.server";
import { SuspendUserSchema, setSuspended } from "~/domain/users/suspend.server";
import { type FieldErrors, fieldErrors } from "~/http/forms";
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { iso } from "~/lib/clock";
import { isAppError } from "~/lib/errors";
import type { Route } from "./+types/admin";

export const meta: Route.MetaFunction = () => [{ title: "Admin — Atelier" }];

const USERS_PAGE_SIZE = 20;

/** Non-admins get the same 404 as a page that does not exist. */
async function requireAdminPage(request: Request) {
  const ui = await requireUiUser(request);
  if (!ui.isAdmin) throw data("Not found", { status: 404 });
  return ui;
}

export async function loader({ request }: Route.LoaderArgs) {
  await requireAdminPage(request);
  const services = getServices();
  const url = new URL(request.url);
  const page = Math.max(1, Math.floor(Number(url.searchParams.get("page") ?? "1")) || 1);
  const q = (url.searchParams.get("q") ?? "").trim().slice(0, 254);
  const users = await adminListUsers(services, { page, page_size: USERS_PAGE_SIZE }, q || undefined);
  const row = (g: Awaited<ReturnType<typeof listLatestAll>>[number]) => ({
    id: g.id,
    email: g.email ?? "(deleted)",
    aiType: g.aiType,
    provider: g.provider,
    model: g.model,
    prompt: g.prompt,
    status: g.status,
    mode: g.mode,
    error: g.errorMessage,
    thumb: parseResultUrls(g)[0] ?? null,
    createdAt: iso(g.createdAt)!,
  });
  const dashboard = await loadDashboard(
    { db: services.db, clock: services.clock, costOf: providerCostCents },
    parseRange(url.searchParams.get("range")),
  );
  return {
    dashboard,
    alerts: await listAlerts(services.db),
    users: users.users,
    page,
    pages: Math.max(1, Math.ceil(users.total / USERS_PAGE_SIZE)),
    total: users.total,
    recent: (await listLatestAll(services.db, { limit: 10 })).map(row),
    failures: (await listLatestAll(services.db, { limit: 10, status: "failed" })).map(row),
    feedback: (await listFeedback(services.db, { limit: 20 })).map((f) => ({ ...f, createdAt: iso(f.createdAt)! })),
    intervals: INTERVALS,
    q,
    // "Grant" / "Subscription" links from the user list fill the forms' email.
    prefill: { grant: url.searchParams.get("grant") ?? "", subscribe: url.searchParams.get("subscribe") ?? "" },
  };
}

/** Form fields arrive as text: numbers become numbers, empty optional fields are left out; then the API's own schema decides. */
function formInput(form: FormData, numeric: string[], optional: string[]) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of form.entries()) {
    if (k === "intent" || typeof v !== "string") continue;
    const s = v.trim();
    if (s === "" && optional.includes(k)) continue;
    out[k] = numeric.includes(k) && /^-?\d+$/.test(s) ? Number(s) : s;
  }
  if (typeof out.period_end === "string" && /^\d{4}-\d{2}-\d{2}$/.test(out.period_end))
    out.period_end = `${out.period_end}T00:00:00.000Z`;
  return out;
}

type ActionResult = {
  intent: "grant" | "subscribe" | "suspend";
  ok?: string;
  errors?: FieldErrors;
  values?: Record<string, string>;
};

export async function action({ request }: Route.ActionArgs): Promise<ActionResult> {
  const admin = await requireAdminPage(request);
  const services = getServices();
  const form = await request.formData();
  const asked = form.get("intent");
  const intent = asked === "subscribe" || asked === "suspend" ? asked : "grant";
  const values = Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)]));
  try {
    if (intent === "suspend") {
      const parsed = SuspendUserSchema.safeParse({
        user_uuid: values.user_uuid,
        suspended: values.suspended === "true" ? true : values.suspended === "false" ? false : values.suspended,
        reason: values.reason || undefined,
      });
      if (!parsed.success) return { intent, errors: { form: parsed.error.issues[0]?.message ?? "invalid request" } };
      const deps = { db: services.db, clock: services.clock, providers: getGenerationRuntime().providers };
      const r = await setSuspended(deps, parsed.data, admin.user.id);
      return {
        intent,
        ok: r.suspended
          ? `Suspended ${r.email}: ${r.canceled_tasks} unfinished tasks canceled, ${r.webhooks} webhooks disabled.`
          : `Restored ${r.email}: ${r.webhooks} webhooks enabled again.`,
      };
    }
    if (intent === "grant") {
      const parsed = GrantCreditsSchema.safeParse(formInput(form, ["credits", "expires_in_days"], ["expires_in_days"]));
      if (!parsed.success) return { intent, errors: fieldErrors(parsed.error), values };
      const r = await adminGrantCredits(services, parsed.data);
      return { intent, ok: `Granted ${r.granted} credits to ${r.email}. Their balance is now ${r.left_credits}.` };
    }
    const parsed = CreateSubscriptionSchema.safeParse(formInput(form, ["amount"], ["sub_id", "period_end"]));
    if (!parsed.success) return { intent, errors: fieldErrors(parsed.error), values };
    const s = await adminCreateSubscription(services, parsed.data);
    return { intent, ok: `Recorded “${s.product_name}” (${s.interval}) for ${s.email}: order ${s.order_no}.` };
  } catch (error) {
    if (isAppError(error) && error.code === "USER_NOT_FOUND")
      return { intent, errors: { email: "No user with this email" }, values };
    if (isAppError(error)) return { intent, errors: { form: error.message }, values };
    throw error;
  }
}

export default function Admin({ loaderData, actionData }: Route.ComponentProps) {
  const { dashboard, alerts, users, page, pages, total, recent, failures, feedback, intervals, q, prefill } =
    loaderData;
  const busy = useNavigation().state === "submitting";
  const grant = actionData?.intent === "grant" ? actionData : undefined;
  const sub = actionData?.intent === "subscribe" ? actionData : undefined;
  const suspend = actionData?.intent === "suspend" ? actionData : undefined;
  const listHref = (p: number) =>
    `/admin?${new URLSearchParams({ ...(q ? { q } : {}), ...(p > 1 ? { page: String(p) } : {}) })}`;
  return (
    <div className="space-y-8">
      <PageHeader title="Admin" description="Users, credits, subscriptions, feedback and recent generations.">
        <Link to="/admin/billing" className={buttonVariants({ variant: "secondary" })}>
          Billing: products, orders, revenue
        </Link>
        <Link to="/admin/models" className={buttonVariants({ variant: "secondary" })}>
          Models and prices
        </Link>
      </PageHeader>

      <DashboardSection dashboard={dashboard} alerts={alerts} />

      <Card title={`Users (${total})`} id="users">
        <Form method="get" action="/admin" role="search" className="mb-4 flex flex-wrap gap-2">
          <label htmlFor="user-search" className="sr-only">
            Search users by email or nickname
          </label>
          <input
            id="user-search"
            name="q"
            type="search"
            defaultValue={q}
            placeholder="Search by email or nickname"
            className={`${inputClass} max-w-sm min-w-0 flex-1`}
          />
          <Button type="submit" variant="secondary">
            <Search aria-hidden="true" /> Search
          </Button>
          {q ? (
            <Link to="/admin" className={buttonVariants({ variant: "ghost" })}>
              Clear
            </Link>
          ) : null}
        </Form>
        {suspend?.ok ? <Notice kind="success">{suspend.ok}</Notice> : null}
        {suspend?.errors?.form ? <Notice kind="error">{suspend.errors.form}</Notice> : null}
        {users.length === 0 ? (
          <EmptyState title={q ? `No user matches “${q}”.` : "No users yet."} />
        ) : (
          <ul className="divide-y divide-border" aria-label="Users">
            {users.map((u) => (
              <li key={u.uuid} data-user={u.email} className="flex flex-wrap items-center gap-x-6 gap-y-2 py-3">
                <div className="min-w-0 flex-1 basis-56">
                  <p className="flex min-w-0 items-center gap-2 font-medium">
                    <span className="truncate">{u.email}</span>
                    {u.suspended ? (
                      <Badge tone="danger" className="shrink-0" data-field="suspended">
                        suspended
                      </Badge>
                    ) : null}
                  </p>
                  <p className="text-xs text-muted-foreground">
                    {u.nickname} · joined {formatDate(u.created_at, { time: false })}
                  </p>
                </div>
                <dl className="flex gap-5">
                  <Stat size="sm" label="Balance" value={u.left_credits} data-field="balance" />
                  <Stat size="sm" label="Earned" value={u.total_credits} />
                  <Stat size="sm" label="Tier" value={u.tier} data-field="tier" />
                </dl>
                <div className="flex gap-2">
                  <Link
                    to={`/admin?grant=${encodeURIComponent(u.email)}#grant-h`}
                    className={buttonVariants({ variant: "secondary", size: "sm" })}
                    aria-label={`Grant credits to ${u.email}`}
                  >
                    <Coins aria-hidden="true" /> Grant
                  </Link>
                  <Link
                    to={`/admin?subscribe=${encodeURIComponent(u.email)}#sub-h`}
                    className={buttonVariants({ variant: "secondary", size: "sm" })}
                    aria-label={`Record a subscription for ${u.email}`}
                  >
                    <CreditCard aria-hidden="true" /> Subscription
                  </Link>
                  <Form method="post">
                    <input type="hidden" name="intent" value="suspend" />
                    <input type="hidden" name="user_uuid" value={u.uuid} />
                    <input type="hidden" name="suspended" value={u.suspended ? "false" : "true"} />
                    <Button
                      type="submit"
                      variant="secondary"
                      size="sm"
                      disabled={busy}
                      aria-label={`${u.suspended ? "Restore" : "Suspend"} ${u.email}`}
                    >
                      {u.suspended ? <RotateCcw aria-hidden="true" /> : <Ban aria-hidden="true" />}
                      {u.suspended ? "Restore" : "Suspend"}
                    </Button>
                  </Form>
                </div>
              </li>
            ))}
          </ul>
        )}
        <Pagination label="User pages" page={page} pages={pages} href={listHref} />
      </Card>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <UserForm
          title="Grant credits"
          id="grant"
          intent="grant"
          result={grant}
          email={prefill.grant}
          busy={busy}
          submit="Grant credits"
        >
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
            <Field
              id="grant-credits"
              label="Credits"
              name="credits"
              inputMode="numeric"
              required
              defaultValue={grant?.values?.credits}
              error={grant?.errors?.credits}
            />
            <Field
              id="grant-expires"
              label="Expires after (days)"
              name="expires_in_days"
              inputMode="numeric"
              hint="Empty: never expires"
              defaultValue={grant?.values?.expires_in_days}
              error={grant?.errors?.expires_in_days}
            />
          </div>
        </UserForm>

        <UserForm
          title="Record a subscription"
          id="sub"
          intent="subscribe"
          result={sub}
          email={prefill.subscribe}
          busy={busy}
          submit="Record subscription"
        >
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
            <Field
              id="sub-product-id"
              label="Product id"
              name="product_id"
              required
              defaultValue={sub?.values?.product_id}
              error={sub?.errors?.product_id}
            />
            <Field
              id="sub-product-name"
              label="Product name"
              name="product_name"
              required
              defaultValue={sub?.values?.product_name}
              error={sub?.errors?.product_name}
            />
            <Select
              id="sub-interval"
              label="Interval"
              name="interval"
              defaultValue={sub?.values?.interval ?? "month"}
              error={sub?.errors?.interval}
            >
              {intervals.map((i) => (
                <option key={i} value={i}>
                  {i}
                </option>
              ))}
            </Select>
            <Field
              id="sub-amount"
              label="Amount (cents)"
              name="amount"
              inputMode="numeric"
              required
              defaultValue={sub?.values?.amount}
              error={sub?.errors?.amount}
            />
            <Field
              id="sub-sub-id"
              label="Subscription id"
              name="sub_id"
              hint="Optional"
              defaultValue={sub?.values?.sub_id}
              error={sub?.errors?.sub_id}
            />
            <Field
              id="sub-period-end"
              label="Paid until"
              name="period_end"
              type="date"
              hint="Optional: one interval from now"
              defaultValue={sub?.values?.period_end}
              error={sub?.errors?.period_end}
            />
          </div>
        </UserForm>
      </div>

      <Card
        title={`Feedback inbox (${feedback.length})`}
        id="feedback"
        description="The latest messages from the feedback page and the API."
      >
        {feedback.length === 0 ? (
          <EmptyState title="No feedback yet" />
        ) : (
          <ul className="divide-y divide-border" aria-label="Feedback">
            {feedback.map((f) => (
              <li key={f.id} className="py-3">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <span
                    className="flex items-center gap-0.5 text-accent"
                    aria-label={`${f.rating} of 5 stars`}
                    role="img"
                  >
                    {[1, 2, 3, 4, 5].map((i) => (
                      <Star
                        key={i}
                        aria-hidden="true"
                        className={`size-4 ${i <= f.rating ? "fill-current" : "opacity-30"}`}
                      />
                    ))}
                  </span>
                  <time className="text-xs text-muted-foreground" dateTime={f.createdAt}>
                    {formatDate(f.createdAt)}
                  </time>
                </div>
                <p className="mt-1.5 text-sm break-words whitespace-pre-wrap">{f.content}</p>
                <p className="mt-1 text-xs text-muted-foreground">
                  {f.name ?? "(deleted user)"} · {f.email ?? "—"}
                </p>
              </li>
            ))}
          </ul>
        )}
      </Card>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <GenerationList title="Recent generations" id="recent" rows={recent} empty="No generations yet." />
        <GenerationList title="Recent failures" id="failures" rows={failures} empty="No failures." showError />
      </div>
    </div>
  );
}

/**
 * An admin form about one user (by e-mail) in its card: posts `intent`, shows the outcome above the fields,
 * and starts empty again once it succeeded (or when a user row's link prefills another e-mail).
 */
function UserForm({
  title,
  id,
  intent,
  result,
  email,
  busy,
  submit,
  children,
}: {
  title: string;
  id: string;
  intent: ActionResult["intent"];
  result: ActionResult | undefined;
  email: string;
  busy: boolean;
  submit: string;
  children: ReactNode;
}) {
  return (
    <Card title={title} id={id}>
      <Form method="post" className="space-y-4" noValidate key={result?.ok ? `sent-${id}` : `${id}-${email}`}>
        <input type="hidden" name="intent" value={intent} />
        {result?.ok ? <Notice kind="success">{result.ok}</Notice> : null}
        {result?.errors?.form ? <Notice kind="error">{result.errors.form}</Notice> : null}
        <Field
          id={`${id}-email`}
          label="User email"
          name="email"
          type="email"
          required
          defaultValue={result?.values?.email ?? email}
          error={result?.errors?.email}
        />
        {children}
        <Button type="submit" disabled={busy}>
          {submit}
        </Button>
      </Form>
    </Card>
  );
}
