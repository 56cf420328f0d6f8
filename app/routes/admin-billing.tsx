import { data, Form, Link, useNavigation } from "react-router";
import { Field, Notice, PageHeader, Select, TableScroll } from "~/components/ui";
import { billingMode } from "~/domain/billing/checkout.server";
import { listAllPayments, revenueByMonth } from "~/domain/billing/orders.server";
import { listProducts, ProductInputSchema, toProductInfo, upsertProduct } from "~/domain/billing/products.server";
import { fieldErrors } from "~/lib/forms";
import { formatMoney } from "~/lib/money";
import { getServices } from "~/lib/services.server";
import { requireUiUser } from "~/lib/session.server";
import type { Route } from "./+types/admin-billing";

export const meta: Route.MetaFunction = () => [{ title: "Billing — Admin — Atelier" }];

/** Non-admins get the same 404 as a page that does not exist. */
async function requireAdmin(request: Request) {
  const ui = await requireUiUser(request);
  if (!ui.isAdmin) throw data("Not found", { status: 404 });
}

export async function loader({ request }: Route.LoaderArgs) {
  await requireAdmin(request);
  const { db, config } = getServices();
  return {
    mode: billingMode(config),
    products: (await listProducts(db, { includeInactive: true })).map((p) => ({ ...toProductInfo(p), active: p.active, sort_order: p.sortOrder })),
    revenue: await revenueByMonth(db),
    payments: await listAllPayments(db, 50),
  };
}

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
  const { mode, products, revenue, payments } = loaderData;
  const busy = useNavigation().state === "submitting";
  const errors: Record<string, string | undefined> = (actionData && "errors" in actionData ? actionData.errors : undefined) ?? {};
  const values: Record<string, string | undefined> = (actionData && "values" in actionData ? actionData.values : undefined) ?? {};
  return (
    <div className="space-y-8">
      <PageHeader title="Billing" description={`Products, orders and revenue. Checkout: ${mode === "stripe" ? "Stripe" : "simulated (no STRIPE_SECRET_KEY)"}.`}>
        <Link to="/admin" className="btn-secondary">
          Back to admin
        </Link>
      </PageHeader>

      <section className="card" aria-labelledby="revenue-h">
        <h2 id="revenue-h" className="text-lg font-semibold">
          Revenue by month
        </h2>
        {revenue.length === 0 ? (
          <p className="mt-2 text-sm text-muted-foreground">No payments yet.</p>
        ) : (
          <TableScroll label="Revenue by month" className="mt-3">
            <table className="w-full text-left text-sm" aria-label="Revenue by month">
              <thead className="text-muted-foreground">
                <tr>
                  <th className="py-1 pr-4 font-medium">Month (UTC)</th>
                  <th className="py-1 pr-4 font-medium">Payments</th>
                  <th className="py-1 pr-4 font-medium">Gross</th>
                  <th className="py-1 pr-4 font-medium">Refunded</th>
                  <th className="py-1 pr-4 font-medium">Net</th>
                </tr>
              </thead>
              <tbody>
                {revenue.map((m) => (
                  <tr key={m.month + m.currency} className="border-t border-border">
                    <td className="py-1 pr-4">{m.month}</td>
                    <td className="py-1 pr-4">{m.payments}</td>
                    <td className="py-1 pr-4">{formatMoney(m.gross, m.currency)}</td>
                    <td className="py-1 pr-4">{formatMoney(m.refunded, m.currency)}</td>
                    <td className="py-1 pr-4 font-medium">{formatMoney(m.net, m.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>

      <section className="card" aria-labelledby="payments-h">
        <h2 id="payments-h" className="text-lg font-semibold">
          Recent orders
        </h2>
        {payments.length === 0 ? (
          <p className="mt-2 text-sm text-muted-foreground">No orders yet.</p>
        ) : (
          <TableScroll label="Recent orders" className="mt-3">
            <table className="w-full text-left text-sm" aria-label="Recent orders">
              <thead className="text-muted-foreground">
                <tr>
                  <th className="py-1 pr-4 font-medium">Date</th>
                  <th className="py-1 pr-4 font-medium">Buyer</th>
                  <th className="py-1 pr-4 font-medium">Product</th>
                  <th className="py-1 pr-4 font-medium">Paid</th>
                  <th className="py-1 pr-4 font-medium">Refunded</th>
                  <th className="py-1 pr-4 font-medium">Credits (clawed back)</th>
                  <th className="py-1 pr-4 font-medium">Order</th>
                </tr>
              </thead>
              <tbody>
                {payments.map((p) => (
                  <tr key={p.ref} className={`border-t border-border ${p.refunded_amount > 0 ? "bg-danger-soft" : ""}`}>
                    <td className="py-1 pr-4">{p.created_at.slice(0, 10)}</td>
                    <td className="py-1 pr-4">{p.email}</td>
                    <td className="py-1 pr-4">
                      {p.product_name} <span className="text-xs text-muted-foreground">{p.provider}</span>
                    </td>
                    <td className="py-1 pr-4">{formatMoney(p.amount, p.currency)}</td>
                    <td className="py-1 pr-4">{p.refunded_amount > 0 ? formatMoney(p.refunded_amount, p.currency) : "—"}</td>
                    <td className="py-1 pr-4">
                      {p.credits}
                      {p.clawed_back > 0 ? ` (−${p.clawed_back})` : ""}
                    </td>
                    <td className="py-1 pr-4">
                      <code className="text-xs">{p.order_no}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>

      <section className="card" aria-labelledby="products-h">
        <h2 id="products-h" className="text-lg font-semibold">
          Products
        </h2>
        <TableScroll label="Products" className="mt-3">
          <table className="w-full text-left text-sm" aria-label="Products">
            <thead className="text-muted-foreground">
              <tr>
                <th className="py-1 pr-4 font-medium">ID</th>
                <th className="py-1 pr-4 font-medium">Name</th>
                <th className="py-1 pr-4 font-medium">Kind</th>
                <th className="py-1 pr-4 font-medium">Credits</th>
                <th className="py-1 pr-4 font-medium">Price</th>
                <th className="py-1 pr-4 font-medium">On sale</th>
              </tr>
            </thead>
            <tbody>
              {products.map((p) => (
                <tr key={p.product_id} className={`border-t border-border ${p.active ? "" : "text-muted-foreground italic"}`}>
                  <td className="py-1 pr-4">
                    <code className="text-xs">{p.product_id}</code>
                  </td>
                  <td className="py-1 pr-4">{p.name}</td>
                  <td className="py-1 pr-4">{p.kind === "pack" ? "pack" : `plan / ${p.interval}`}</td>
                  <td className="py-1 pr-4">{p.credits}</td>
                  <td className="py-1 pr-4">{formatMoney(p.amount, p.currency)}</td>
                  <td className="py-1 pr-4">{p.active ? "yes" : "no"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>

        <h3 className="mt-6 text-sm font-semibold text-muted-foreground">Add or change a product</h3>
        <p className="text-sm text-muted-foreground">An existing ID is updated; products are never deleted (orders name them): take one off sale instead.</p>
        {actionData && "ok" in actionData ? <Notice kind="success">{actionData.ok}</Notice> : null}
        {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}
        <Form method="post" className="mt-3 grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3" noValidate>
          <Field label="Product ID" name="product_id" required defaultValue={values.product_id} error={errors.product_id} hint="e.g. pack-100" />
          <Field label="Name" name="name" required defaultValue={values.name} error={errors.name} />
          <Select label="Kind" name="kind" defaultValue={values.kind ?? "pack"} error={errors.kind}>
            <option value="pack">Credit pack (one-time)</option>
            <option value="subscription">Subscription plan</option>
          </Select>
          <Field label="Credits (per period for plans)" name="credits" inputMode="numeric" required defaultValue={values.credits} error={errors.credits} />
          <Select label="Interval (plans)" name="interval" defaultValue={values.interval ?? "month"} error={errors.interval}>
            <option value="month">month</option>
            <option value="year">year</option>
          </Select>
          <Field label="Price in cents" name="amount" inputMode="numeric" required defaultValue={values.amount} error={errors.amount} hint="500 = 5.00" />
          <Field label="Currency" name="currency" defaultValue={values.currency ?? "usd"} error={errors.currency} />
          <Field label="Sort order" name="sort_order" inputMode="numeric" defaultValue={values.sort_order ?? "0"} error={errors.sort_order} />
          <Select label="On sale" name="active" defaultValue={values.active ?? "true"}>
            <option value="true">yes</option>
            <option value="false">no (hidden)</option>
          </Select>
          <div className="sm:col-span-2 lg:col-span-3">
            <button type="submit" className="btn-primary" disabled={busy}>
              Save product
            </button>
          </div>
        </Form>
      </section>
    </div>
  );
}
