import { data, Link } from "react-router";
import { LiveRefresh, Progress, ResultMedia } from "~/components/generation";
import { Badge, duration, PageHeader, utcTime } from "~/components/ui";
import { findOffering } from "~/domain/catalog";
import { chargedCost, getOwnGeneration, parseResultUrls } from "~/domain/generations/generations.server";
import { isFinished } from "~/domain/generations/status";
import { iso } from "~/lib/clock";
import { isAppError } from "~/lib/errors";
import { getServices } from "~/lib/services.server";
import { requireUiUser } from "~/lib/session.server";
import type { Route } from "./+types/studio-detail";

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData ? `${loaderData.gen.prompt.slice(0, 60)} — Studio — Atelier` : "Generation — Atelier" },
];

export async function loader({ request, params }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const { db } = getServices();
  let row;
  try {
    row = await getOwnGeneration(db, user.id, params.genId);
  } catch (error) {
    // Another user's task looks exactly like a missing one (DESIGN §1).
    if (isAppError(error) && error.code === "GENERATION_NOT_FOUND") throw data("generation not found", { status: 404 });
    throw error;
  }
  let options: string | null = null;
  try {
    const o = JSON.parse(row.options);
    options = o && Object.keys(o).length ? JSON.stringify(o, null, 2) : null;
  } catch {
    options = null;
  }
  return {
    gen: {
      id: row.id,
      aiType: row.aiType,
      provider: row.provider,
      model: row.model,
      label: findOffering(row.aiType, row.provider, row.model)?.label ?? row.model,
      prompt: row.prompt,
      status: row.status,
      mode: row.mode,
      price: row.creditsCost,
      charged: chargedCost(row),
      error: row.errorMessage,
      urls: parseResultUrls(row),
      options,
      createdAt: iso(row.createdAt)!,
      startedAt: iso(row.startedAt),
      completedAt: iso(row.completedAt),
    },
  };
}

export default function GenerationDetail({ loaderData }: Route.ComponentProps) {
  const { gen } = loaderData;
  const running = !isFinished(gen.status);
  const cost =
    gen.status === "completed"
      ? `${gen.charged} credits`
      : gen.status === "failed"
        ? "0 credits (failed tasks are free)"
        : `${gen.price} credits, charged when the result is delivered`;
  const facts: [string, React.ReactNode][] = [
    ["Status", <Badge key="s" status={gen.status} data-testid="status" />],
    ["Type", gen.aiType],
    ["Provider", `${gen.provider}${gen.mode === "simulated" ? " (simulated)" : ""}`],
    ["Model", `${gen.label} (${gen.model})`],
    ["Cost", cost],
    ["Created", <time key="c" dateTime={gen.createdAt}>{utcTime(gen.createdAt, true)}</time>],
    ["Started", gen.startedAt ? <time dateTime={gen.startedAt}>{utcTime(gen.startedAt, true)}</time> : "—"],
    ["Completed", gen.completedAt ? <time dateTime={gen.completedAt}>{utcTime(gen.completedAt, true)}</time> : "—"],
    ["Duration", duration(gen.createdAt, gen.completedAt)],
    ["Generation id", <code key="i" className="text-xs break-all">{gen.id}</code>],
  ];
  return (
    <div className="space-y-6">
      <LiveRefresh active={running} watch={[gen]} />
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link to="/studio" className="link">
          ← Back to the studio
        </Link>
      </nav>
      <PageHeader title="Generation" description={gen.prompt} />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <section className="card" aria-labelledby="result-h">
          <h2 id="result-h" className="text-lg font-semibold">
            Result
          </h2>
          {gen.status === "completed" ? (
            <div className="mt-3 space-y-4">
              {gen.urls.map((u, i) => (
                <figure key={u} className="space-y-2">
                  <ResultMedia url={u} aiType={gen.aiType} prompt={gen.prompt} />
                  <figcaption>
                    <a href={u} download className="btn-secondary">
                      Download{gen.urls.length > 1 ? ` file ${i + 1}` : ""} ({u.slice(u.lastIndexOf(".") + 1)})
                    </a>
                  </figcaption>
                </figure>
              ))}
            </div>
          ) : gen.status === "failed" ? (
            <div className="mt-3 rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-900" role="note">
              <p className="font-medium">The generation failed; no credits were charged.</p>
              <p className="mt-1" data-testid="error-message">
                {gen.error}
              </p>
            </div>
          ) : (
            <Progress status={gen.status} />
          )}
        </section>
        <section className="card" aria-labelledby="facts-h">
          <h2 id="facts-h" className="text-lg font-semibold">
            Details
          </h2>
          <dl className="mt-3 grid grid-cols-[8rem_1fr] gap-x-4 gap-y-2 text-sm">
            {facts.map(([k, v]) => (
              <div key={k} className="contents">
                <dt className="font-medium text-slate-600">{k}</dt>
                <dd data-field={k}>{v}</dd>
              </div>
            ))}
          </dl>
          <h3 className="mt-4 text-sm font-semibold text-slate-700">Prompt</h3>
          <p className="mt-1 text-sm break-words whitespace-pre-wrap" data-field="Prompt">
            {gen.prompt}
          </p>
          {gen.options ? (
            <>
              <h3 className="mt-4 text-sm font-semibold text-slate-700">Options</h3>
              <pre className="mt-1 overflow-x-auto rounded bg-slate-100 p-2 text-xs" tabIndex={0} aria-label="Options">{gen.options}</pre>
            </>
          ) : null}
        </section>
      </div>
    </div>
  );
}
