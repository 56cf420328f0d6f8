import { data, Form, Link } from "react-router";
import { Badge, Button, buttonVariants, cardClass, cn, EmptyState, Notice, PageHeader, utcTime } from "~/components/ui";
import { listReports } from "~/domain/reports/list-reports.server";
import { REASON_LABELS, type ReportReason, ResolveReportSchema } from "~/domain/reports/reasons";
import { resolveReport } from "~/domain/reports/resolve-report.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import type { Route } from "./+types/admin-reports";

export const meta: Route.MetaFunction = () => [{ title: "Reports — Admin — Atelier" }];

/** Non-admins get the same 404 as a page that does not exist. */
async function requireAdmin(request: Request) {
  const ui = await requireUiUser(request);
  if (!ui.isAdmin) throw data("Not found", { status: 404 });
  return ui;
}

const VIEWS = ["open", "removed", "dismissed", "all"] as const;

export async function loader({ request }: Route.LoaderArgs) {
  await requireAdmin(request);
  const services = getServices();
  const asked = new URL(request.url).searchParams.get("status");
  const view = (VIEWS as readonly string[]).includes(asked ?? "") ? (asked as (typeof VIEWS)[number]) : "open";
  return { view, now: services.clock.now(), reports: await listReports(services, { status: view, limit: 500 }) };
}

export async function action({ request }: Route.ActionArgs) {
  const ui = await requireAdmin(request);
  const services = getServices();
  const form = Object.fromEntries(await request.formData()) as Record<string, string>;
  const parsed = ResolveReportSchema.safeParse({
    report_id: form.report_id,
    action: form.action,
    note: form.note?.trim() ? form.note : undefined,
  });
  if (!parsed.success) return { error: parsed.error.issues[0]?.message ?? "invalid request" };
  try {
    const result = await resolveReport(
      {
        db: services.db,
        clock: services.clock,
        storage: getGenerationRuntime().storage,
        dataDir: services.config.dataDir,
      },
      ui.user.id,
      parsed.data,
    );
    return {
      ok:
        parsed.data.action === "remove"
          ? `Removed the result of task ${result.report.gen_id}${result.quarantined ? " (evidence kept in quarantine)" : ""}.`
          : `Dismissed the report on task ${result.report.gen_id}.`,
    };
  } catch (error) {
    if (isAppError(error)) return { error: error.message };
    throw error;
  }
}

const hours = (ms: number) => {
  const h = Math.round(ms / 3_600_000);
  return h === 1 || h === -1 ? "1 hour" : `${Math.abs(h)} hours`;
};

export default function AdminReports({ loaderData, actionData }: Route.ComponentProps) {
  const { reports, view, now } = loaderData;
  return (
    <div className="space-y-8">
      <PageHeader
        title="Reports"
        description="Reported results, earliest due first. A valid removal request for an intimate image is due within 48 hours (TAKE IT DOWN Act); see docs/safety.md."
      >
        <Link to="/admin" className={buttonVariants({ variant: "secondary" })}>
          Admin
        </Link>
      </PageHeader>
      {actionData && "ok" in actionData ? <Notice kind="success">{actionData.ok}</Notice> : null}
      {actionData && "error" in actionData ? <Notice kind="error">{actionData.error}</Notice> : null}
      <nav aria-label="Report status" className="flex gap-2">
        {VIEWS.map((v) => (
          <Link
            key={v}
            to={`/admin/reports?status=${v}`}
            aria-current={v === view ? "page" : undefined}
            className={buttonVariants({ variant: v === view ? "primary" : "ghost", size: "sm" })}
          >
            {v}
          </Link>
        ))}
      </nav>
      {reports.length === 0 ? (
        <EmptyState title="No reports">{view === "open" ? "Nothing waits for a decision." : null}</EmptyState>
      ) : (
        <ol className="space-y-4" data-testid="report-queue">
          {reports.map((r) => {
            const due = Date.parse(r.due_at);
            return (
              <li key={r.report_id}>
                <div
                  className={cn(cardClass, r.overdue && "border-2 border-danger")}
                  data-overdue={r.overdue ? "true" : undefined}
                >
                  <div className="flex flex-wrap items-center gap-2">
                    <Badge tone={r.reason === "sexual_minors" ? "danger" : "neutral"}>
                      {REASON_LABELS[r.reason as ReportReason] ?? r.reason}
                    </Badge>
                    <Badge tone={r.status === "open" ? "warning" : "neutral"}>{r.status}</Badge>
                    {r.status === "open" ? (
                      <span
                        className={r.overdue ? "font-semibold text-danger-soft-foreground" : "text-muted-foreground"}
                      >
                        {r.overdue ? `Overdue by ${hours(now - due)}` : `Due in ${hours(due - now)}`} (
                        {utcTime(r.due_at)})
                      </span>
                    ) : null}
                    {r.quarantined ? <Badge tone="danger">evidence quarantined</Badge> : null}
                  </div>
                  <dl className="mt-3 grid grid-cols-[8rem_1fr] gap-x-4 gap-y-1 text-sm">
                    <dt className="text-muted-foreground">Task</dt>
                    <dd>
                      <code className="text-xs">{r.gen_id}</code> {r.model ? `· ${r.model}` : null}
                    </dd>
                    <dt className="text-muted-foreground">Prompt</dt>
                    <dd className="break-words">{r.prompt ?? "(task deleted)"}</dd>
                    <dt className="text-muted-foreground">Owner</dt>
                    <dd>{r.owner_email ?? r.owner_id}</dd>
                    <dt className="text-muted-foreground">Reporter</dt>
                    <dd>{r.reporter_email ?? "(deleted)"}</dd>
                    <dt className="text-muted-foreground">Reported</dt>
                    <dd>{utcTime(r.created_at)}</dd>
                    {r.details ? (
                      <>
                        <dt className="text-muted-foreground">Details</dt>
                        <dd className="whitespace-pre-wrap break-words">{r.details}</dd>
                      </>
                    ) : null}
                    {r.resolution_note ? (
                      <>
                        <dt className="text-muted-foreground">Note</dt>
                        <dd className="whitespace-pre-wrap break-words">{r.resolution_note}</dd>
                      </>
                    ) : null}
                  </dl>
                  {r.status === "open" && r.result_urls.length > 0 && r.reason !== "sexual_minors" ? (
                    <div className="mt-3 flex flex-wrap gap-2">
                      {r.result_urls.map((u) => (
                        <a key={u} href={u} target="_blank" rel="noreferrer noopener" className="text-sm underline">
                          result
                        </a>
                      ))}
                    </div>
                  ) : null}
                  {r.status === "open" ? (
                    <Form method="post" className="mt-4 flex flex-wrap items-end gap-2">
                      <input type="hidden" name="report_id" value={r.report_id} />
                      <label className="grow text-sm">
                        <span className="sr-only">Note</span>
                        <input
                          name="note"
                          maxLength={2000}
                          placeholder="Note (optional)"
                          className="block w-full rounded-xl border border-input bg-surface px-3 py-2 text-sm"
                        />
                      </label>
                      <Button type="submit" name="action" value="remove" variant="danger">
                        Remove result
                      </Button>
                      <Button type="submit" name="action" value="dismiss" variant="secondary">
                        Dismiss
                      </Button>
                    </Form>
                  ) : null}
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
