import { pageFromQuery } from "~/domain/paging";
import { data, Form, Link, useNavigation } from "react-router";
import { Badge, EmptyState, Field, Notice, PageHeader, Pagination, Select, utcTime, TableScroll } from "~/components/ui";
import { adminCreateSubscription, adminGrantCredits, adminListUsers, CreateSubscriptionSchema, GrantCreditsSchema } from "~/domain/admin/admin.server";
import { listLatestAll } from "~/domain/generations/generations.server";
import { INTERVALS } from "~/domain/subscriptions/subscriptions.server";
import { iso } from "~/lib/clock";
import { isAppError } from "~/lib/errors";
import { fieldErrors, type FieldErrors } from "~/lib/forms";
import { getServices } from "~/lib/services.server";
import { requireUiUser } from "~/lib/session.server";
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
  const page = pageFromQuery(new URL(request.url).searchParams.get("page"));
  const users = await adminListUsers(services, { page, page_size: USERS_PAGE_SIZE });
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
    createdAt: iso(g.createdAt)!,
  });
  return {
    users: users.users,
    page,
    pages: Math.max(1, Math.ceil(users.total / USERS_PAGE_SIZE)),
    total: users.total,
    recent: (await listLatestAll(services.db, { limit: 10 })).map(row),
    failures: (await listLatestAll(services.db, { limit: 10, status: "failed" })).map(row),
    intervals: INTERVALS,
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
  if (typeof out.period_end === "string" && /^\d{4}-\d{2}-\d{2}$/.test(out.period_end)) out.period_end = `${out.period_end}T00:00:00.000Z`;
  return out;
}

type ActionResult = { intent: "grant" | "subscribe"; ok?: string; errors?: FieldErrors; values?: Record<string, string> };

export async function action({ request }: Route.ActionArgs): Promise<ActionResult> {
  await requireAdminPage(request);
  const services = getServices();
  const form = await request.formData();
  const intent = form.get("intent") === "subscribe" ? "subscribe" : "grant";
  const values = Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)]));
  try {
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
    if (isAppError(error) && error.code === "USER_NOT_FOUND") return { intent, errors: { email: "No user with this email" }, values };
    if (isAppError(error)) return { intent, errors: { form: error.message }, values };
    throw error;
  }
}

export default function Admin({ loaderData, actionData }: Route.ComponentProps) {
  const { users, page, pages, total, recent, failures, intervals } = loaderData;
  const busy = useNavigation().state === "submitting";
  const grant = actionData?.intent === "grant" ? actionData : undefined;
  const sub = actionData?.intent === "subscribe" ? actionData : undefined;
  return (
    <div className="space-y-8">
      <PageHeader title="Admin" description="Users, credits, subscriptions and recent generations.">
        <Link to="/admin/billing" className="btn-secondary">
          Billing: products, orders, revenue
        </Link>
      </PageHeader>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <section className="card" aria-labelledby="grant-h">
          <h2 id="grant-h" className="text-lg font-semibold">
            Grant credits
          </h2>
          <Form method="post" className="mt-4 space-y-4" noValidate key={grant?.ok ? "sent-grant" : "grant"}>
            <input type="hidden" name="intent" value="grant" />
            {grant?.ok ? <Notice kind="success">{grant.ok}</Notice> : null}
            {grant?.errors?.form ? <Notice kind="error">{grant.errors.form}</Notice> : null}
            <Field id="grant-email" label="User email" name="email" type="email" required defaultValue={grant?.values?.email} error={grant?.errors?.email} />
            <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
              <Field id="grant-credits" label="Credits" name="credits" inputMode="numeric" required defaultValue={grant?.values?.credits} error={grant?.errors?.credits} />
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
            <button type="submit" className="btn-primary" disabled={busy}>
              Grant credits
            </button>
          </Form>
        </section>

        <section className="card" aria-labelledby="sub-h">
          <h2 id="sub-h" className="text-lg font-semibold">
            Record a subscription
          </h2>
          <Form method="post" className="mt-4 space-y-4" noValidate key={sub?.ok ? "sent-sub" : "sub"}>
            <input type="hidden" name="intent" value="subscribe" />
            {sub?.ok ? <Notice kind="success">{sub.ok}</Notice> : null}
            {sub?.errors?.form ? <Notice kind="error">{sub.errors.form}</Notice> : null}
            <Field id="sub-email" label="User email" name="email" type="email" required defaultValue={sub?.values?.email} error={sub?.errors?.email} />
            <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
              <Field id="sub-product-id" label="Product id" name="product_id" required defaultValue={sub?.values?.product_id} error={sub?.errors?.product_id} />
              <Field id="sub-product-name" label="Product name" name="product_name" required defaultValue={sub?.values?.product_name} error={sub?.errors?.product_name} />
              <Select id="sub-interval" label="Interval" name="interval" defaultValue={sub?.values?.interval ?? "month"} error={sub?.errors?.interval}>
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
              <Field id="sub-sub-id" label="Subscription id" name="sub_id" hint="Optional" defaultValue={sub?.values?.sub_id} error={sub?.errors?.sub_id} />
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
            <button type="submit" className="btn-primary" disabled={busy}>
              Record subscription
            </button>
          </Form>
        </section>
      </div>

      <section className="card" aria-labelledby="users-h">
        <h2 id="users-h" className="text-lg font-semibold">
          Users <span className="text-sm font-normal text-slate-600">({total})</span>
        </h2>
        <TableScroll label="Users table" className="mt-3">
          <table className="table-base" aria-label="Users">
            <thead>
              <tr>
                <th scope="col" className="th">
                  Email
                </th>
                <th scope="col" className="th">
                  Nickname
                </th>
                <th scope="col" className="th">
                  Balance
                </th>
                <th scope="col" className="th">
                  Earned
                </th>
                <th scope="col" className="th">
                  Tier
                </th>
                <th scope="col" className="th">
                  Joined
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.uuid} data-user={u.email}>
                  <td className="td whitespace-nowrap">{u.email}</td>
                  <td className="td">{u.nickname}</td>
                  <td className="td" data-field="balance">
                    {u.left_credits}
                  </td>
                  <td className="td">{u.total_credits}</td>
                  <td className="td" data-field="tier">
                    {u.tier}
                  </td>
                  <td className="td whitespace-nowrap">{utcTime(u.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
        <Pagination label="User pages" page={page} pages={pages} href={(p) => `/admin${p > 1 ? `?page=${p}` : ""}`} />
      </section>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <GenerationList title="Recent generations" id="recent" rows={recent} empty="No generations yet." />
        <GenerationList title="Recent failures" id="failures" rows={failures} empty="No failures." showError />
      </div>
    </div>
  );
}

function GenerationList({
  title,
  id,
  rows,
  empty,
  showError,
}: {
  title: string;
  id: string;
  rows: { id: string; email: string; aiType: string; provider: string; model: string; prompt: string; status: string; mode: string; error: string | null; createdAt: string }[];
  empty: string;
  showError?: boolean;
}) {
  return (
    <section className="card" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`} className="text-lg font-semibold">
        {title}
      </h2>
      {rows.length === 0 ? (
        <div className="mt-3">
          <EmptyState title={empty} />
        </div>
      ) : (
        <ul className="mt-3 divide-y divide-slate-100" aria-label={title}>
          {rows.map((g) => (
            <li key={g.id} className="py-2 text-sm">
              <div className="flex flex-wrap items-center justify-between gap-2">
                <Badge status={g.status} />
                <time className="text-xs text-slate-600" dateTime={g.createdAt}>
                  {utcTime(g.createdAt, true)}
                </time>
              </div>
              <p className="mt-1 break-words">{g.prompt}</p>
              <p className="text-xs text-slate-600">
                {g.email} · {g.aiType} · {g.provider} / {g.model}
                {g.mode === "simulated" ? " · simulated" : ""}
              </p>
              {showError && g.error ? <p className="mt-1 text-xs text-red-800">{g.error}</p> : null}
            </li>
          ))}
        </ul>
      )}
      <p className="mt-3 text-xs text-slate-600">
        Users see their own tasks in the <Link to="/studio" className="link">studio</Link>.
      </p>
    </section>
  );
}
