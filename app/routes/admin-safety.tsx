import { data, Form, Link, useNavigation } from "react-router";
import { Button, buttonVariants, Card, DataTable, Field, formatDate, Notice, PageHeader } from "~/components/ui";
import { findBlockedTerm } from "~/domain/safety/matcher";
import { blockTerm, listTerms, recentSafetyEvents, unblockTerm } from "~/domain/safety/terms.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import type { Route } from "./+types/admin-safety";

export const meta: Route.MetaFunction = () => [{ title: "Safety — Admin — Atelier" }];

/** Non-admins get the same 404 as a page that does not exist. */
async function requireAdmin(request: Request) {
  const ui = await requireUiUser(request);
  if (!ui.isAdmin) throw data("Not found", { status: 404 });
  return ui;
}

export async function loader({ request }: Route.LoaderArgs) {
  await requireAdmin(request);
  const { db, config } = getServices();
  const terms = await listTerms(db);
  const events = await recentSafetyEvents(db, 100);
  return {
    terms: terms.map((t) => ({ term: t.term, normalized: t.normalized, created_at: t.createdAt.toISOString() })),
    events: events.map((e) => ({
      id: e.id,
      kind: e.kind,
      category: e.category,
      user_id: e.userId,
      detail: e.detail,
      created_at: e.createdAt.toISOString(),
    })),
    moderation: config.MODERATION_PROVIDER,
    moderationFail: config.MODERATION_FAIL,
  };
}

type Data = Route.ComponentProps["loaderData"];

export async function action({ request }: Route.ActionArgs) {
  const ui = await requireAdmin(request);
  const { db, clock } = getServices();
  const form = await request.formData();
  const intent = form.get("intent");
  const term = form.get("term");
  try {
    if (intent === "block") {
      const r = await blockTerm(db, term, ui.user.id, clock);
      return { ok: r.added ? `Blocked “${r.term}”.` : `“${r.normalized}” was already blocked.` };
    }
    if (intent === "unblock") {
      const r = await unblockTerm(db, term, ui.user.id, clock);
      return { ok: `Unblocked “${r.normalized}”.` };
    }
    if (intent === "test") {
      const prompt = typeof form.get("prompt") === "string" ? String(form.get("prompt")) : "";
      const terms = (await listTerms(db)).map((t) => t.normalized);
      const hit = findBlockedTerm(prompt, terms);
      return { test: prompt, hit };
    }
  } catch (error) {
    if (isAppError(error)) return { error: error.message };
    throw error;
  }
  return { error: "unknown action" };
}

export default function AdminSafety({ loaderData, actionData }: Route.ComponentProps) {
  const { terms, events, moderation, moderationFail } = loaderData;
  const busy = useNavigation().state === "submitting";
  const result = actionData as { ok?: string; error?: string; test?: string; hit?: string | null } | undefined;
  return (
    <div className="space-y-8">
      <PageHeader
        title="Safety"
        description={`Blocked terms and the audit trail. Moderation: ${moderation === "openai" ? `OpenAI (fails ${moderationFail})` : "off"}. See docs/safety.md.`}
      >
        <Link to="/content-policy" className={buttonVariants({ variant: "secondary" })}>
          Content policy
        </Link>
        <Link to="/admin" className={buttonVariants({ variant: "secondary" })}>
          Back to admin
        </Link>
      </PageHeader>

      {result?.ok ? <Notice kind="success">{result.ok}</Notice> : null}
      {result?.error ? <Notice kind="error">{result.error}</Notice> : null}

      <Card
        title={`Blocked terms (${terms.length})`}
        id="terms"
        description="A prompt holding a term as a whole word is refused before anything is created — whatever the case, accents, invisible characters or look-alike letters."
      >
        <Form method="post" className="mt-3 flex flex-wrap items-end gap-3">
          <input type="hidden" name="intent" value="block" />
          <Field label="Term" name="term" required maxLength={200} />
          <Button type="submit" disabled={busy}>
            Block term
          </Button>
        </Form>
        <DataTable<Data["terms"][number]>
          label="Blocked terms"
          rows={terms}
          rowKey={(t) => t.normalized}
          empty="No blocked terms."
          columns={[
            { header: "Term", cell: (t) => t.term },
            { header: "Matched as", cell: (t) => <code>{t.normalized}</code> },
            { header: "Added", cell: (t) => formatDate(t.created_at) },
            {
              header: "",
              cell: (t) => (
                <Form method="post">
                  <input type="hidden" name="intent" value="unblock" />
                  <input type="hidden" name="term" value={t.normalized} />
                  <Button type="submit" variant="secondary" disabled={busy}>
                    Remove
                  </Button>
                </Form>
              ),
            },
          ]}
        />
      </Card>

      <Card
        title="Test a prompt"
        id="test"
        description="What the blocked terms would do with a prompt (nothing is recorded)."
      >
        <Form method="post" className="mt-3 flex flex-wrap items-end gap-3">
          <input type="hidden" name="intent" value="test" />
          <Field label="Prompt" name="prompt" defaultValue={result?.test ?? ""} maxLength={4000} />
          <Button type="submit" variant="secondary" disabled={busy}>
            Test
          </Button>
        </Form>
        {result && "test" in result ? (
          <p className="mt-3 text-sm" role="status">
            {result.hit ? (
              <>
                Refused: it holds the blocked term <code>{result.hit}</code>.
              </>
            ) : (
              "Allowed by the blocked terms."
            )}
          </p>
        ) : null}
      </Card>

      <Card
        title="Recent safety events"
        id="events"
        description="Policy changes and refusals, newest first (the rule, never the content)."
      >
        <DataTable<Data["events"][number]>
          label="Recent safety events"
          rows={events}
          rowKey={(e) => e.id}
          empty="No safety events yet."
          columns={[
            { header: "When", cell: (e) => formatDate(e.created_at), className: "whitespace-nowrap" },
            { header: "Event", cell: (e) => e.kind.replaceAll("_", " ") },
            { header: "Rule", cell: (e) => e.category ?? "" },
            { header: "Who", cell: (e) => <code className="text-xs">{e.user_id ?? "CLI"}</code> },
            { header: "Detail", cell: (e) => e.detail ?? "" },
          ]}
        />
      </Card>
    </div>
  );
}
