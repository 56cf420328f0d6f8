import { useEffect } from "react";
import { Form, Link, redirect, useNavigation, useRevalidator } from "react-router";
import { Notice, PageHeader } from "~/components/ui";
import { CATALOG } from "~/domain/catalog";
import { availableCredits } from "~/domain/credits/ledger.server";
import {
  chargedCost,
  createGeneration,
  listRecent,
  parseResultUrls,
  validateGenerateInput,
} from "~/domain/generations/generations.server";
import { getGenerationRuntime } from "~/domain/generations/runtime.server";
import { iso } from "~/lib/clock";
import { isAppError } from "~/lib/errors";
import { fieldErrors, StudioSchema } from "~/lib/forms";
import { getServices } from "~/lib/services.server";
import { requireUiUser } from "~/lib/session.server";
import type { Route } from "./+types/studio";

export const meta: Route.MetaFunction = () => [{ title: "Studio — Atelier" }];

const PAGE_SIZE = 8;
const POLL_MS = 2500;

export async function loader({ request }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const { db, clock } = getServices();
  const { providers } = getGenerationRuntime();
  const url = new URL(request.url);
  const page = Math.max(1, Math.floor(Number(url.searchParams.get("page") ?? "1")) || 1);
  const { rows, total } = listRecent(db, user.id, { page, pageSize: PAGE_SIZE });
  return {
    offerings: CATALOG.map((o) => ({ ...o, value: `${o.aiType}|${o.provider}|${o.model}`, mode: providers.mode(o.provider) })),
    available: Math.max(0, availableCredits(db, user.id, clock)),
    created: url.searchParams.get("created"),
    page,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    total,
    tasks: rows.map((r) => ({
      id: r.id,
      aiType: r.aiType,
      provider: r.provider,
      model: r.model,
      prompt: r.prompt,
      status: r.status,
      mode: r.mode,
      cost: chargedCost(r),
      error: r.errorMessage,
      urls: parseResultUrls(r),
      createdAt: iso(r.createdAt)!,
      completedAt: iso(r.completedAt),
    })),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const form = Object.fromEntries(await request.formData());
  const values = { offering: String(form.offering ?? ""), prompt: String(form.prompt ?? "") };
  const parsed = StudioSchema.safeParse(form);
  if (!parsed.success) return { errors: fieldErrors(parsed.error), values };
  const [ai_type, provider, model] = parsed.data.offering.split("|");
  const services = getServices();
  try {
    const input = validateGenerateInput({ ai_type, provider, model, prompt: parsed.data.prompt });
    const mode = getGenerationRuntime().providers.mode(input.offering.provider);
    const row = createGeneration(services.db, { userId: user.id, input, mode, config: services.config }, services.clock);
    return redirect(`/studio?created=${encodeURIComponent(row.id)}`);
  } catch (error) {
    if (isAppError(error)) return { errors: { form: error.message }, values };
    throw error;
  }
}

const STATUS_STYLE: Record<string, string> = {
  pending: "bg-slate-100 text-slate-800",
  processing: "bg-indigo-100 text-indigo-900",
  completed: "bg-emerald-100 text-emerald-900",
  failed: "bg-red-100 text-red-900",
};

const isVideoFile = (url: string) => /\.(mp4|webm|mov)$/i.test(url);

export default function Studio({ loaderData, actionData }: Route.ComponentProps) {
  const { offerings, available, tasks, page, pages, total, created } = loaderData;
  const errors = actionData?.errors ?? {};
  const busy = useNavigation().state === "submitting";
  const revalidator = useRevalidator();
  const active = tasks.some((t) => t.status === "pending" || t.status === "processing");

  // Live status: re-read the page data every few seconds while a task is unfinished.
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => {
      if (revalidator.state === "idle" && document.visibilityState === "visible") void revalidator.revalidate();
    }, POLL_MS);
    return () => clearInterval(id);
  }, [active, revalidator]);

  const selected = actionData?.values?.offering ?? offerings[0]?.value;
  return (
    <div className="space-y-8">
      {active ? (
        <noscript>
          <meta httpEquiv="refresh" content="3" />
        </noscript>
      ) : null}
      <PageHeader title="Studio">
        <p className="text-sm text-slate-600" data-testid="available">
          Available: <strong>{available}</strong> credits
        </p>
      </PageHeader>

      <section className="card" aria-labelledby="create-h">
        <h2 id="create-h" className="text-lg font-semibold">
          New generation
        </h2>
        <Form method="post" className="mt-4 space-y-4" noValidate>
          {errors.form ? <Notice kind="error">{errors.form}</Notice> : null}
          {created && !actionData ? <Notice kind="success">Generation started. It appears below and updates by itself.</Notice> : null}
          <div>
            <label htmlFor="f-offering" className="label">
              Type, provider and model
            </label>
            <select
              id="f-offering"
              name="offering"
              className="input mt-1"
              defaultValue={selected}
              aria-invalid={errors.offering ? true : undefined}
              aria-describedby={errors.offering ? "f-offering-error" : undefined}
            >
              {(["image", "video"] as const).map((type) => (
                <optgroup key={type} label={type === "image" ? "Images" : "Videos"}>
                  {offerings
                    .filter((o) => o.aiType === type)
                    .map((o) => (
                      <option key={o.value} value={o.value}>
                        {`${o.label} — ${o.provider} / ${o.model} — ${o.credits} credits${o.mode === "simulated" ? " (simulated)" : ""}`}
                      </option>
                    ))}
                </optgroup>
              ))}
            </select>
            {errors.offering ? (
              <p id="f-offering-error" className="field-error" role="alert">
                {errors.offering}
              </p>
            ) : null}
          </div>
          <div>
            <label htmlFor="f-prompt" className="label">
              Prompt
            </label>
            <textarea
              id="f-prompt"
              name="prompt"
              rows={3}
              required
              maxLength={4000}
              className="input mt-1"
              defaultValue={actionData?.values?.prompt}
              aria-invalid={errors.prompt ? true : undefined}
              aria-describedby={errors.prompt ? "f-prompt-error" : "f-prompt-hint"}
            />
            {errors.prompt ? (
              <p id="f-prompt-error" className="field-error" role="alert">
                {errors.prompt}
              </p>
            ) : (
              <p id="f-prompt-hint" className="mt-1 text-sm text-slate-500">
                Up to 4000 characters. Credits are charged only when the result is delivered.
              </p>
            )}
          </div>
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? "Starting…" : "Generate"}
          </button>
        </Form>
        <details className="mt-4 text-sm text-slate-600">
          <summary className="cursor-pointer">Providers</summary>
          <ul className="mt-2 space-y-1" aria-label="Provider modes">
            {[...new Map(offerings.map((o) => [o.provider, o.mode])).entries()].map(([p, mode]) => (
              <li key={p} data-provider={p}>
                <span className="font-medium">{p}</span>: {mode === "live" ? "live" : "simulated (no credentials configured)"}
              </li>
            ))}
          </ul>
        </details>
      </section>

      <section aria-labelledby="history-h">
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          <h2 id="history-h" className="text-lg font-semibold">
            History <span className="text-sm font-normal text-slate-500">({total})</span>
          </h2>
          <a href={`/studio${page > 1 ? `?page=${page}` : ""}`} className="btn-secondary">
            Refresh
          </a>
        </div>
        {tasks.length === 0 ? (
          <p className="text-sm text-slate-600">Nothing yet: your generations will appear here.</p>
        ) : (
          <ul className="grid grid-cols-1 items-start gap-4 md:grid-cols-2">
            {tasks.map((t) => (
              <li key={t.id} className="card" data-gen-id={t.id} data-status={t.status} aria-label={`Generation: ${t.prompt}`}>
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <span className={`rounded-full px-2.5 py-0.5 text-xs font-semibold ${STATUS_STYLE[t.status] ?? ""}`} data-testid="status">
                    {t.status}
                  </span>
                  <span className="text-xs text-slate-500">
                    {t.aiType} · {t.provider} / {t.model} · {t.cost} credits{t.mode === "simulated" ? " · simulated" : ""}
                  </span>
                </div>
                <p className="mt-2 break-words text-sm">{t.prompt}</p>
                {t.status === "pending" || t.status === "processing" ? (
                  <div className="mt-3" role="status">
                    <progress className="w-full" aria-label={`Generating (${t.status})`} />
                    <p className="mt-1 text-xs text-slate-500">{t.status === "pending" ? "Waiting to start…" : "Generating…"}</p>
                  </div>
                ) : null}
                {t.status === "completed" ? (
                  <div className="mt-3 space-y-2">
                    {t.urls.map((u) =>
                      isVideoFile(u) ? (
                        <video key={u} src={u} controls loop className="w-full rounded-md" aria-label={`Video: ${t.prompt}`} />
                      ) : (
                        <img key={u} src={u} alt={`${t.aiType === "video" ? "Video" : "Image"}: ${t.prompt}`} className="w-full rounded-md" loading="lazy" />
                      ),
                    )}
                    {t.urls.map((u) => (
                      <a key={u + "#dl"} href={u} className="block text-xs text-indigo-700 underline" download>
                        Download {u.slice(u.lastIndexOf("/") + 1)}
                      </a>
                    ))}
                  </div>
                ) : null}
                {t.status === "failed" ? (
                  <p className="mt-3 text-sm text-red-800" role="note">
                    {t.error}
                  </p>
                ) : null}
                <p className="mt-2 text-xs text-slate-500">
                  <time dateTime={t.createdAt}>{t.createdAt.replace("T", " ").slice(0, 19)} UTC</time>
                </p>
              </li>
            ))}
          </ul>
        )}
        {pages > 1 ? (
          <nav aria-label="History pages" className="mt-4 flex items-center justify-between">
            {page > 1 ? (
              <Link to={`/studio?page=${page - 1}`} className="btn-secondary">
                Newer
              </Link>
            ) : (
              <span />
            )}
            <span className="text-sm text-slate-600">
              Page {page} of {pages}
            </span>
            {page < pages ? (
              <Link to={`/studio?page=${page + 1}`} className="btn-secondary">
                Older
              </Link>
            ) : (
              <span />
            )}
          </nav>
        ) : null}
      </section>
    </div>
  );
}
