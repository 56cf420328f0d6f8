import { data, Form, Link, useNavigation } from "react-router";
import {
  Button,
  buttonVariants,
  Card,
  DataTable,
  Field,
  formatDate,
  Notice,
  PageHeader,
  Pagination,
  Select,
} from "~/components/ui";
import { billingMode } from "~/domain/billing/checkout.server";
import { listAllPayments, revenueByMonth } from "~/domain/billing/orders.server";
import { listProducts, ProductInputSchema, toProductInfo, upsertProduct } from "~/domain/billing/products.server";
import { pageFromQuery } from "~/domain/paging";
import { fieldErrors } from "~/http/forms";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { formatMoney } from "~/lib/money";
import type { Route } from "./+types/admin-billing";

export const meta: Route.MetaFunction = () => [{ title: "Billing — Admin — Atelier" }];

/** Non-admins get the same 404 as a page that does not exist. */
async function requireAdmin(request: Request) {
  const ui = await requireUiUser(request);
  if (!ui.isAdmin) throw data("Not found", { status: 404 });
}

const PAGE_SIZE = 25;

export async function loader({ request }: Route.LoaderArgs) {
  await requireAdmin(request);
  const { db, config } = getServices();
  const page = pageFromQuery(new URL(request.url).searchParams.get("page"));
  const payments = await listAllPayments(db, { page, pageSize: PAGE_SIZE });
  return {
    mode: billingMode(config),
    products: (await listProducts(db, { includeInactive: true })).map((p) => ({
      ...toProductInfo(p),
      active: p.active,
      sort_order: p.sortOrder,
    })),
    revenue: await revenueByMonth(db),
    payments: payments.rows,
    page,
    pages: Math.max(1, Math.ceil(payments.total / PAGE_SIZE)),
    total: payments.total,
  };
}

type Data = Route.ComponentProps["loaderData"];
const money = "text-right tabular-nums";

export async function action({ request }: Route.ActionArgs) {
  await requireAdmin(request);
  const { db, clock } = getServices();
  const form = Object.fromEntries(await request.formData());
  const int = (v: unknown) => (typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : v);
  const input = {
    product_id: form.product_id,
    name: form.name,
    kind: form.kind,
    credits: int(form.credits),
    interval: form.kind === "subscription" ? form.interval : null,
    amount: int(form.amount),
    currency: form.currency || "usd",
    active: form.active === "true",
    sort_order: int(form.sort_order || "0"),
  };
  const parsed = ProductInputSchema.safeParse(input);
  if (!parsed.success) return { errors: fieldErrors(parsed.error), values: form as Record<string, string> };
  const p = await upsertProduct(db, parsed.data, clock);
  return { ok: `Saved ${p.name} (${p.id}).` };
}

export default function AdminBilling({ loaderData, actionData }: Route.ComponentProps) {
  const { mode, products, revenue, payments, page, pages, total } = loaderData;
  const busy = useNavigation().state === "submitting";
  const errors: Record<string, string | undefined> =
    (actionData && "errors" in actionData ? actionData.errors : undefined) ?? {};
  const values: Record<string, string | undefined> =
    (actionData && "values" in actionData ? actionData.values : undefined) ?? {};
  return (
    <div className="space-y-8">
      <PageHeader
        title="Billing"
        description={`Products, orders and revenue. Checkout: ${mode === "stripe" ? "Stripe" : "simulated (no STRIPE_SECRET_KEY)"}.`}
      >
        <Link to="/admin" className={buttonVariants({ variant: "secondary" })}>
          Back to admin
        </Link>
      </PageHeader>

      <Card title="Revenue by month" id="revenue">
        <DataTable<Data["revenue"][number]>
          label="Revenue by month"
          rows={revenue}
          rowKey={(m) => m.month + m.currency}
          empty="No payments yet."
          columns={[
            { header: "Month (UTC)", cell: (m) => m.month },
            { header: "Payments", cell: (m) => m.payments, className: "tabular-nums" },
            { header: "Gross", cell: (m) => formatMoney(m.gross, m.currency), className: money },
            { header: "Refunded", cell: (m) => formatMoney(m.refunded, m.currency), className: money },
            {
              header: "Net",
              cell: (m) => <strong className="font-semibold">{formatMoney(m.net, m.currency)}</strong>,
              className: money,
            },
          ]}
        />
      </Card>

      <Card
        title={`Orders (${total})`}
        id="payments"
        description="Every payment, newest first; refunded ones are tinted."
      >
        <DataTable<Data["payments"][number]>
          label="Recent orders"
          rows={payments}
          rowKey={(p) => p.ref}
          rowClassName={(p) => (p.refunded_amount > 0 ? "bg-danger-soft/60" : undefined)}
          empty="No orders yet."
          columns={[
            { header: "Date", cell: (p) => formatDate(p.created_at, { time: false }), className: "whitespace-nowrap" },
            { header: "Buyer", cell: (p) => p.email },
            {
              header: "Product",
              cell: (p) => (
                <>
                  {p.product_name} <span className="text-xs text-muted-foreground">{p.provider}</span>
                </>
              ),
            },
            { header: "Paid", cell: (p) => formatMoney(p.amount, p.currency), className: money },
            {
              header: "Refunded",
              cell: (p) => (p.refunded_amount > 0 ? formatMoney(p.refunded_amount, p.currency) : "—"),
              className: money,
            },
            {
              header: "Credits (clawed back)",
              cell: (p) => `${p.credits}${p.clawed_back > 0 ? ` (−${p.clawed_back})` : ""}`,
              className: money,
            },
            { header: "Order", cell: (p) => <code className="text-xs">{p.order_no}</code> },
          ]}
        />
        <Pagination
          label="Order pages"
          page={page}
          pages={pages}
          href={(p) => (p > 1 ? `/admin/billing?page=${p}` : "/admin/billing")}
        />
      </Card>

      <Card
        title="Products"
        id="products"
        description="An existing ID is updated; products are never deleted (orders name them): take one off sale instead."
      >
        <DataTable<Data["products"][number]>
          label="Products"
          rows={products}
          rowKey={(p) => p.product_id}
          rowClassName={(p) => (p.active ? undefined : "text-muted-foreground italic")}
          empty="No products yet."
          columns={[
            { header: "ID", cell: (p) => <code className="text-xs">{p.product_id}</code> },
            { header: "Name", cell: (p) => p.name },
            { header: "Kind", cell: (p) => (p.kind === "pack" ? "pack" : `plan / ${p.interval}`) },
            { header: "Credits", cell: (p) => p.credits, className: money },
            { header: "Price", cell: (p) => formatMoney(p.amount, p.currency), className: money },
            { header: "On sale", cell: (p) => (p.active ? "yes" : "no") },
          ]}
        />

        <h3 className="mt-8 text-sm font-semibold">Add or change a product</h3>
        {actionData && "ok" in actionData ? (
          <Notice kind="success" className="mt-3">
            {actionData.ok}
          </Notice>
        ) : null}
        {errors.form ? (
          <Notice kind="error" className="mt-3">
            {errors.form}
          </Notice>
        ) : null}
        <Form method="post" className="mt-3 grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3" noValidate>
          <Field
            label="Product ID"
            name="product_id"
            required
            defaultValue={values.product_id}
            error={errors.product_id}
            hint="e.g. pack-100"
          />
          <Field label="Name" name="name" required defaultValue={values.name} error={errors.name} />
          <Select label="Kind" name="kind" defaultValue={values.kind ?? "pack"} error={errors.kind}>
            <option value="pack">Credit pack (one-time)</option>
            <option value="subscription">Subscription plan</option>
          </Select>
          <Field
            label="Credits (per period for plans)"
            name="credits"
            inputMode="numeric"
            required
            defaultValue={values.credits}
            error={errors.credits}
          />
          <Select
            label="Interval (plans)"
            name="interval"
            defaultValue={values.interval ?? "month"}
            error={errors.interval}
          >
            <option value="month">month</option>
            <option value="year">year</option>
          </Select>
          <Field
            label="Price in cents"
            name="amount"
            inputMode="numeric"
            required
            defaultValue={values.amount}
            error={errors.amount}
            hint="500 = 5.00"
          />
          <Field label="Currency" name="currency" defaultValue={values.currency ?? "usd"} error={errors.currency} />
          <Field
            label="Sort order"
            name="sort_order"
            inputMode="numeric"
            defaultValue={values.sort_order ?? "0"}
            error={errors.sort_order}
          />
          <Select label="On sale" name="active" defaultValue={values.active ?? "true"}>
            <option value="true">yes</option>
            <option value="false">no (hidden)</option>
          </Select>
          <div className="sm:col-span-2 lg:col-span-3">
            <Button type="submit" disabled={busy}>
              Save product
            </Button>
          </div>
        </Form>
      </Card>
    </div>
  );
}
