/** The admin dashboard: what the site made, how providers did, what it earned, and who came, over 7/30/90 days. */
import { Link } from "react-router";
import { buttonVariants, Card, DataTable, Stat } from "~/components/ui";
import type { Dashboard } from "~/domain/admin/dashboard.server";
import type { AlertEntry } from "~/domain/ops/alerts.server";
import { GroupedBars, Lines, StackedBars, shortDay } from "./charts";

const RANGES = [7, 30, 90] as const;

function money(cents: number, currency: string) {
  return new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() }).format(cents / 100);
}
const percent = (v: number | null) => (v === null ? "—" : `${Math.round(v * 1000) / 10} %`);
const seconds = (v: number | null) => (v === null ? "—" : `${v} s`);

const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);

export function DashboardSection({ dashboard: d, alerts }: { dashboard: Dashboard; alerts: AlertEntry[] }) {
  const byDay = new Map(d.generationsByDay.map((g) => [g.day, g.counts]));
  const users = new Map(d.usersByDay.map((u) => [u.day, u]));
  const months = new Map(d.byMonth.map((m) => [m.month, m]));
  const providers = new Map(d.providers.map((p) => [p.provider, p]));
  const cur = d.currency;
  return (
    <Card
      title="Dashboard"
      id="dashboard"
      description={`The last ${d.range} days (UTC), refreshed every minute.`}
      actions={
        <nav aria-label="Dashboard range" className="flex flex-wrap gap-2">
          {RANGES.map((r) => (
            <Link
              key={r}
              to={`/admin?range=${r}#dashboard`}
              aria-current={r === d.range ? "page" : undefined}
              className={buttonVariants({ variant: r === d.range ? "primary" : "secondary", size: "sm" })}
            >
              {r} days
            </Link>
          ))}
          <a
            href={`/admin/dashboard.csv?range=${d.range}`}
            download
            className={buttonVariants({ variant: "ghost", size: "sm" })}
          >
            Export CSV
          </a>
        </nav>
      }
    >
      <section id="alerts" aria-labelledby="alerts-title" className="mb-6">
        <h3 id="alerts-title" className="text-sm font-medium">
          Alerts
        </h3>
        {alerts.length === 0 ? (
          <p className="mt-1 text-sm text-muted-foreground">
            No alert so far. Admins get an e-mail when a provider fails too often, the queue is stuck, a webhook
            endpoint is disabled or Stripe signatures keep failing.
          </p>
        ) : (
          <ul className="mt-2 divide-y divide-border text-sm" data-testid="alerts">
            {alerts.map((a) => (
              <li key={a.key} className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 py-2">
                <span>
                  <span
                    className={
                      a.state === "firing"
                        ? "mr-2 rounded bg-danger px-1.5 py-0.5 text-xs font-medium text-white"
                        : "mr-2 rounded bg-muted px-1.5 py-0.5 text-xs"
                    }
                  >
                    {a.state === "firing" ? "firing" : "resolved"}
                  </span>
                  {a.message}
                </span>
                <span className="text-xs text-muted-foreground tabular-nums">
                  since {when(a.firstAt)} · last seen {when(a.lastSeenAt)} ·{" "}
                  {a.sentCount === 0 ? "not mailed" : `mailed ${a.sentCount}×, last ${when(a.lastSentAt ?? 0)}`}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <dl className="mb-6 grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Stat
          label="Credits outstanding"
          value={d.credits.outstanding.toLocaleString("en")}
          hint="unspent, unexpired: what users can still spend"
          data-testid="credits-outstanding"
        />
        <Stat
          label="Expiring within 30 days"
          value={d.credits.expiringSoon.toLocaleString("en")}
          data-testid="credits-expiring"
        />
        <Stat
          label="Revenue per credit"
          value={money(d.revenuePerCreditCents, cur)}
          hint="net payments ÷ credits sold in the range"
        />
        <Stat
          label="Generations"
          value={d.providers.reduce((n, p) => n + p.total, 0).toLocaleString("en")}
          hint={`in the last ${d.range} days`}
        />
      </dl>
      <div className="grid gap-8 xl:grid-cols-2">
        <StackedBars
          title="Generations per day by model"
          description={`Tasks created each day of the last ${d.range} days, stacked by provider and model.`}
          categories={d.days}
          series={d.models}
          value={(day, model) => byDay.get(day)?.[model] ?? 0}
          formatCategory={shortDay}
        />
        <GroupedBars
          title="Time to result per provider"
          description="Median (p50) and 95th percentile seconds from creation to completion of completed tasks."
          categories={d.providers.map((p) => p.provider)}
          series={[
            { key: "p50", label: "p50 (s)" },
            { key: "p95", label: "p95 (s)" },
          ]}
          value={(provider, k) =>
            (k === "p50" ? providers.get(provider)?.p50Seconds : providers.get(provider)?.p95Seconds) ?? 0
          }
          formatValue={(v) => `${v} s`}
        />
        <GroupedBars
          title="Revenue, provider cost and margin by month"
          description="Net payments (less refunds), what providers charged for completed tasks at the catalog's cost, and the difference, per calendar month."
          categories={d.byMonth.map((m) => m.month)}
          series={[
            { key: "revenue", label: "Revenue" },
            { key: "cost", label: "Provider cost" },
            { key: "margin", label: "Margin" },
          ]}
          value={(month, k) => {
            const m = months.get(month);
            if (!m) return 0;
            return k === "revenue" ? m.revenueCents : k === "cost" ? m.costCents : m.marginCents;
          }}
          formatValue={(v) => money(v, cur)}
        />
        <Lines
          title="Sign-ups and active users per day"
          description="New accounts each day, and accounts that created at least one task that day."
          categories={d.days}
          series={[
            { key: "signups", label: "Sign-ups" },
            { key: "active", label: "Active users" },
          ]}
          value={(day, k) => (k === "signups" ? users.get(day)?.signups : users.get(day)?.active) ?? 0}
          formatCategory={shortDay}
        />
      </div>

      <h3 className="mt-8 text-sm font-medium">Providers</h3>
      <DataTable
        label="Provider health"
        className="mt-2"
        rows={d.providers}
        rowKey={(p) => p.provider}
        empty="No task in this range"
        columns={[
          { header: "Provider", cell: (p) => p.provider },
          { header: "Tasks", cell: (p) => p.total },
          { header: "Completed", cell: (p) => p.completed },
          { header: "Failed", cell: (p) => p.failed },
          { header: "Canceled", cell: (p) => p.canceled },
          { header: "Success rate", cell: (p) => percent(p.successRate) },
          { header: "p50", cell: (p) => seconds(p.p50Seconds) },
          { header: "p95", cell: (p) => seconds(p.p95Seconds) },
        ]}
      />

      <h3 className="mt-8 text-sm font-medium">Margin by model</h3>
      <DataTable
        label="Margin by model"
        className="mt-2"
        testId="margin-by-model"
        rows={d.byModel}
        rowKey={(m) => m.model}
        empty="No completed task in this range"
        columns={[
          { header: "Model", cell: (m) => m.model },
          { header: "Completed", cell: (m) => m.completed },
          { header: "Credits charged", cell: (m) => m.creditsCharged },
          { header: "Revenue", cell: (m) => money(m.revenueCents, cur) },
          { header: "Provider cost", cell: (m) => (m.costCents === null ? "not set" : money(m.costCents, cur)) },
          { header: "Margin", cell: (m) => (m.marginCents === null ? "—" : money(m.marginCents, cur)) },
        ]}
      />
      {d.modelsWithoutCost.length > 0 ? (
        <p className="mt-2 text-xs text-muted-foreground">
          No provider cost set for {d.modelsWithoutCost.join(", ")}: their margin is unknown. Revenue per model is its
          credits charged × the range's revenue per credit.
        </p>
      ) : null}
    </Card>
  );
}
