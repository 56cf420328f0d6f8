/** Account page additions for payments (DESIGN §9): order history, portal link, invited users and rewards. */
import { Form, Link } from "react-router";
import { TableScroll } from "~/components/ui";
import { formatDate } from "~/components/ui/format";
import type { PaymentEntry, ReferralEntry } from "~/domain/billing/orders.server";
import { formatMoney } from "~/lib/money";

export interface AccountBillingData {
  payments: PaymentEntry[];
  referrals: ReferralEntry[];
  referralCredits: number;
  hasPortal: boolean;
}

export function OrderHistory({ data }: { data: AccountBillingData }) {
  return (
    <section className="card" aria-labelledby="orders-h">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="orders-h" className="text-lg font-semibold">
          Orders
        </h2>
        <div className="flex gap-2">
          {data.hasPortal ? (
            <Form method="post" action="/pricing">
              <input type="hidden" name="intent" value="portal" />
              <button type="submit" className="btn-secondary">
                Manage billing
              </button>
            </Form>
          ) : null}
          <Link to="/pricing" className="btn-primary">
            Buy credits
          </Link>
        </div>
      </div>
      {data.payments.length === 0 ? (
        <p className="mt-2 text-sm text-muted-foreground">No orders yet.</p>
      ) : (
        <TableScroll label="Orders" className="mt-3">
          <table className="w-full text-left text-sm" aria-label="Orders" data-testid="orders">
            <thead className="text-muted-foreground">
              <tr>
                <th className="py-1 pr-4 font-medium">Date</th>
                <th className="py-1 pr-4 font-medium">Product</th>
                <th className="py-1 pr-4 font-medium">Credits</th>
                <th className="py-1 pr-4 font-medium">Paid</th>
                <th className="py-1 pr-4 font-medium">Order</th>
              </tr>
            </thead>
            <tbody>
              {data.payments.map((p) => (
                <tr key={p.ref} className="border-t border-border">
                  <td className="py-1 pr-4">{formatDate(p.created_at, { time: false })}</td>
                  <td className="py-1 pr-4">
                    {p.product_name}
                    {p.provider === "simulated" ? <span className="ml-2 text-xs text-warning-soft-foreground">(simulated)</span> : null}
                  </td>
                  <td className="py-1 pr-4">
                    {p.credits}
                    {p.clawed_back > 0 ? <span className="ml-1 text-danger-soft-foreground">(−{p.clawed_back} refunded)</span> : null}
                  </td>
                  <td className="py-1 pr-4">
                    {formatMoney(p.amount, p.currency)}
                    {p.refunded_amount > 0 ? <span className="ml-1 text-danger-soft-foreground">(refunded {formatMoney(p.refunded_amount, p.currency)})</span> : null}
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
  );
}

export function Referrals({ data, isAffiliate, percent }: { data: AccountBillingData; isAffiliate: boolean; percent: number }) {
  return (
    <div className="mt-4" data-testid="referrals">
      <p className="text-sm text-muted-foreground">
        {isAffiliate
          ? `When someone you invited pays for the first time, you earn ${percent}% of that order's credits.`
          : "Turn affiliate on to earn credits when people you invite buy their first order."}{" "}
        Earned so far: <strong>{data.referralCredits}</strong> credits.
      </p>
      {data.referrals.length > 0 ? (
        <TableScroll label="Invited users" className="mt-2">
          <table className="w-full text-left text-sm" aria-label="Invited users">
            <thead className="text-muted-foreground">
              <tr>
                <th className="py-1 pr-4 font-medium">Invited user</th>
                <th className="py-1 pr-4 font-medium">Joined</th>
                <th className="py-1 pr-4 font-medium">Your reward</th>
              </tr>
            </thead>
            <tbody>
              {data.referrals.map((r) => (
                <tr key={r.email + r.joined_at} className="border-t border-border">
                  <td className="py-1 pr-4">
                    {r.nickname} <span className="text-muted-foreground">{r.email}</span>
                  </td>
                  <td className="py-1 pr-4">{formatDate(r.joined_at, { time: false })}</td>
                  <td className="py-1 pr-4">{r.reward_credits ? `${r.reward_credits} credits` : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="mt-2 text-sm text-muted-foreground">Nobody has signed up with your link yet.</p>
      )}
    </div>
  );
}

/** The studio's way out when a generation needs more credits than are available. */
export function OutOfCredits() {
  return (
    <p className="mt-2 text-sm" data-testid="out-of-credits">
      <Link to="/pricing" className="font-medium text-accent underline">
        Buy credits
      </Link>{" "}
      to continue — packs start small and last a year.
    </p>
  );
}
