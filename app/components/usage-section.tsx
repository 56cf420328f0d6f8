/**
 * The account page's usage (docs/usage.md): credits spent per UTC day over the last 30 days as an SVG bar chart
 * (the admin dashboard's visx charts: drawn on the server, no JavaScript needed), the totals, and a table of the days
 * with activity. The numbers are POST /api/usage's (group_by day), so they equal the ledger.
 */
import { BarChart3 } from "lucide-react";
import { StackedBars, shortDay } from "~/components/admin/charts";
import { Card, DataTable, EmptyState, Stat } from "~/components/ui";

export interface UsageDay {
  day: string;
  credits: number;
  completed: number;
  failed: number;
  canceled: number;
}

export interface UsageView {
  from: string;
  to: string;
  days: UsageDay[];
  total: Omit<UsageDay, "day">;
}

const tile = { size: "lg", className: "rounded-2xl bg-muted p-4" } as const;

export function UsageSection({ usage }: { usage: UsageView }) {
  const active = usage.days.filter((d) => d.credits + d.completed + d.failed + d.canceled > 0).reverse();
  const byDay = new Map(usage.days.map((d) => [d.day, d]));
  const range = `${usage.days[0]?.day ?? ""} to ${usage.days.at(-1)?.day ?? ""} (UTC)`;
  return (
    <Card
      title="Usage"
      id="usage"
      anchor
      description={
        <>
          Credits your tasks were charged each day of the last {usage.days.length} days, {range}. The same numbers come
          from <code>POST /api/usage</code>.
        </>
      }
    >
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="usage-totals">
        <Stat {...tile} label="Credits spent" value={usage.total.credits} data-testid="usage-credits" />
        <Stat {...tile} label="Completed" value={usage.total.completed} />
        <Stat {...tile} label="Failed" value={usage.total.failed} />
        <Stat {...tile} label="Canceled" value={usage.total.canceled} />
      </dl>
      {active.length === 0 ? (
        <div className="mt-4">
          <EmptyState title="No tasks in the last 30 days" icon={<BarChart3 />}>
            Generate something in the studio or through the API and it shows here.
          </EmptyState>
        </div>
      ) : (
        <div className="mt-4 space-y-4">
          <StackedBars
            title="Credits spent per day"
            description={`Credits charged for tasks created each UTC day, ${range}; ${usage.total.credits} in total.`}
            categories={usage.days.map((d) => d.day)}
            series={["credits"]}
            value={(day) => byDay.get(day)?.credits ?? 0}
            formatCategory={shortDay}
            fitPhone
          />
          <DataTable
            label="Usage by day"
            testId="usage-table"
            rows={active}
            rowKey={(d) => d.day}
            empty="No tasks"
            columns={[
              { header: "Day (UTC)", cell: (d) => d.day },
              { header: "Credits", cell: (d) => d.credits, className: "text-right tabular-nums" },
              { header: "Completed", cell: (d) => d.completed, className: "text-right tabular-nums" },
              { header: "Failed", cell: (d) => d.failed, className: "text-right tabular-nums" },
              { header: "Canceled", cell: (d) => d.canceled, className: "text-right tabular-nums" },
            ]}
          />
        </div>
      )}
    </Card>
  );
}
