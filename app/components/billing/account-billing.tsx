/** Account page additions for payments (docs/design.md §9): order history, portal link, invited users and rewards. */
import { Form, Link } from "react-router";
import { Button, buttonVariants, Card, DataTable, EmptyState, formatDate, Hint } from "~/components/ui";
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
    <Card
      title="Orders"
      id="orders"
      actions={
        <div className="flex flex-wrap gap-2">
          {data.hasPortal ? (
            <Form method="post" action="/pricing">
              <input type="hidden" name="intent" value="portal" />
              <Button type="submit" variant="secondary" size="sm">
                Manage billing
              </Button>
            </Form>
          ) : null}
          <Link to="/pricing" className={buttonVariants({ size: "sm" })}>
            Buy credits
          </Link>
        </div>
      }
    >
      <DataTable<PaymentEntry>
        label="Orders"
        testId="orders"
        rows={data.payments}
        rowKey={(p) => p.ref}
        empty={<EmptyState title="No orders yet">Packs and plans you buy are listed here.</EmptyState>}
        columns={[
          { header: "Date", cell: (p) => formatDate(p.created_at, { time: false }), className: "whitespace-nowrap" },
          {
            header: "Product",
            cell: (p) => (
              <>
                {p.product_name}
                {p.provider === "simulated" ? (
                  <span className="ml-2 text-xs text-warning-soft-foreground">(simulated)</span>
                ) : null}
              </>
            ),
          },
          {
            header: "Credits",
            className: "tabular-nums",
            cell: (p) => (
              <>
                {p.credits}
                {p.clawed_back > 0 ? (
                  <span className="ml-1 text-danger-soft-foreground">(−{p.clawed_back} refunded)</span>
                ) : null}
              </>
            ),
          },
          {
            header: "Paid",
            className: "tabular-nums",
            cell: (p) => (
              <>
                {formatMoney(p.amount, p.currency)}
                {p.refunded_amount > 0 ? (
                  <span className="ml-1 text-danger-soft-foreground">
                    (refunded {formatMoney(p.refunded_amount, p.currency)})
                  </span>
                ) : null}
              </>
            ),
          },
          { header: "Order", cell: (p) => <code className="text-xs">{p.order_no}</code> },
        ]}
      />
    </Card>
  );
}

export function Referrals({ data }: { data: AccountBillingData }) {
  return (
    <div className="mt-4 space-y-3" data-testid="referrals">
      {/* The switch above says how the reward works; here only what it brought. */}
      <Hint>
        Earned from invites so far: <strong className="text-foreground">{data.referralCredits}</strong> credits.
      </Hint>
      <DataTable<ReferralEntry>
        label="Invited users"
        rows={data.referrals}
        rowKey={(r) => r.email + r.joined_at}
        empty={<Hint>Nobody has signed up with your link yet.</Hint>}
        columns={[
          {
            header: "Invited user",
            cell: (r) => (
              <>
                {r.nickname} <span className="text-muted-foreground">{r.email}</span>
              </>
            ),
          },
          { header: "Joined", cell: (r) => formatDate(r.joined_at, { time: false }), className: "whitespace-nowrap" },
          { header: "Your reward", cell: (r) => (r.reward_credits ? `${r.reward_credits} credits` : "—") },
        ]}
      />
    </div>
  );
}
