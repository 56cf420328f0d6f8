import { Sparkles } from "lucide-react";
import { useMemo } from "react";
import { data, Form, Link, redirect } from "react-router";
import { type MediaItem, shapeClass, useLightbox } from "~/components/media";
import { optionFormValues, readOptions } from "~/components/model-options";
import { Composer } from "~/components/studio/composer";
import { Filters, filterHref } from "~/components/studio/filters";
import { GalleryItem } from "~/components/studio/gallery-item";
import type { ActionData } from "~/components/studio/types";
import { useShowCreated } from "~/components/studio/use-show-created";
import { EmptyState, PageHeader, Pagination } from "~/components/ui";
import { UI_MESSAGES } from "~/domain/account/messages";
import { CATALOG, findOffering, isAiType, sampleImage, speedHint, typicalSecondsHere } from "~/domain/catalog";
import { checkedInToday, checkIn } from "~/domain/credits/checkin.server";
import { balanceOf } from "~/domain/credits/ledger.server";
import { cancelGeneration } from "~/domain/generations/cancel.server";
import { parseFilter } from "~/domain/generations/filter";
import { listRecent, setHidden } from "~/domain/generations/gallery.server";
import { getGenerationRuntime } from "~/domain/generations/runtime.server";
import { startGeneration } from "~/domain/generations/start-generation.server";
import { wasCanceled } from "~/domain/generations/status";
import { chargedCost, parseResultUrls } from "~/domain/generations/views.server";
import { iso } from "~/lib/clock";
import { errorBody } from "~/lib/envelope";
import { isAppError } from "~/lib/errors";
import { fieldErrors, StudioSchema } from "~/lib/forms";
import { getServices } from "~/lib/services.server";
import { requireUiUser } from "~/lib/session.server";
import type { Route } from "./+types/studio";

export const meta: Route.MetaFunction = () => [{ title: "Studio — Atelier" }];

const PAGE_SIZE = 24;
const parseOptions = (json: string): Record<string, unknown> => {
  try {
    const v = JSON.parse(json);
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
};
const offeringValue = (o: { aiType: string; provider: string; model: string }) =>
  `${o.aiType}|${o.provider}|${o.model}`;

export async function loader({ request }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const { db, clock, config } = getServices();
  const { providers } = getGenerationRuntime();
  const url = new URL(request.url);
  const page = Math.max(1, Math.floor(Number(url.searchParams.get("page") ?? "1")) || 1);
  const filter = parseFilter(url.searchParams);
  const { rows, total } = await listRecent(
    db,
    user.id,
    { page, pageSize: PAGE_SIZE },
    { ...filter, galleryOnly: true },
  );
  const balance = await db.exec(balanceOf(db, user.id, clock));
  const offerings = CATALOG.map((o) => {
    const mode = providers.mode(o.provider);
    return {
      ...o,
      value: offeringValue(o),
      mode,
      affordable: o.credits <= balance.available,
      speed: speedHint(typicalSecondsHere(o, mode, config.SIMULATOR_DELAY_MS)),
      sampleImage: sampleImage(o),
    };
  });
  // "Reuse prompt" links carry the prompt and model (`model`). Without JavaScript, "Show options" submits
  // the composer here by GET (`make`, `offering`, `prompt`, `opt_*`): the form comes back with that model's
  // options and what was typed. Otherwise the first affordable image model.
  const q = url.searchParams;
  const make = q.get("make");
  const wanted = offerings.find(
    (o) => o.value === (q.get("model") ?? q.get("offering")) && (!isAiType(make) || o.aiType === make),
  );
  const type = wanted?.aiType ?? (isAiType(make) ? make : "image");
  const initial =
    wanted ?? offerings.find((o) => o.aiType === type && o.affordable) ?? offerings.find((o) => o.aiType === type)!;
  return {
    offerings,
    initial: {
      offering: initial.value,
      make: initial.aiType,
      prompt: (q.get("prompt") ?? "").slice(0, 4000),
      options: optionFormValues(initial, (name) => q.get(name)),
    },
    balance,
    checkedIn: await checkedInToday(db, user.id, clock),
    created: url.searchParams.get("created"),
    filter: { type: filter.aiType ?? "", status: filter.status ?? "" },
    page,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    total,
    tasks: rows.map((r) => ({
      id: r.id,
      aiType: r.aiType,
      provider: r.provider,
      model: r.model,
      label: CATALOG.find((o) => offeringValue(o) === offeringValue(r))?.label ?? r.model,
      offering: offeringValue(r),
      prompt: r.prompt,
      status: r.status,
      mode: r.mode,
      cost: chargedCost(r),
      error: r.errorMessage,
      canceled: wasCanceled(r),
      urls: parseResultUrls(r),
      shape: shapeClass(r.aiType, parseOptions(r.options)),
      createdAt: iso(r.createdAt)!,
    })),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const services = getServices();
  const form = Object.fromEntries(await request.formData());
  if (form.intent === "hide" || form.intent === "unhide") {
    try {
      const row = await setHidden(
        services.db,
        user.id,
        String(form.gen_id ?? ""),
        form.intent === "hide",
        services.clock,
      );
      return { intent: "hide", hidden: row.hiddenAt !== null, id: row.id };
    } catch (error) {
      // Gone, or someone else's: the envelope's not-found (docs/design.md §1), not a server error.
      if (isAppError(error) && error.code === "GENERATION_NOT_FOUND")
        return data(errorBody(error.message), { status: 404 });
      throw error;
    }
  }
  if (form.intent === "cancel") {
    let canceled = true;
    try {
      await cancelGeneration(
        { db: services.db, clock: services.clock, providers: getGenerationRuntime().providers },
        user.id,
        String(form.gen_id ?? ""),
      );
    } catch (error) {
      // Finished meanwhile (or not this user's): the gallery shows the task as it is.
      if (!isAppError(error)) throw error;
      canceled = false;
    }
    // From the page's script (useCancelGeneration) an answer, so the page stays where it was; without JavaScript, back with a notice.
    if (form.via === "fetch") return { intent: "cancel", canceled };
    return redirect("/studio?notice=generation-canceled");
  }
  if (form.intent === "checkin") {
    const r = await checkIn(services.db, user.id, services.clock);
    return {
      intent: "checkin",
      added: r.added,
      text: r.added ? UI_MESSAGES.CHECKIN_ADDED : UI_MESSAGES.CHECKIN_ALREADY,
    };
  }
  const [aiType = "", prov = "", mod = ""] = String(form.offering ?? "").split("|");
  const picked = findOffering(aiType, prov, mod);
  const values = {
    offering: String(form.offering ?? ""),
    prompt: String(form.prompt ?? ""),
    options: picked ? optionFormValues(picked, (name) => form[name]) : {},
  };
  const parsed = StudioSchema.safeParse(form);
  if (!parsed.success) return { intent: "create", errors: fieldErrors(parsed.error), values };
  const [ai_type, provider, model] = parsed.data.offering.split("|");
  if (form.make && form.make !== ai_type) {
    return {
      intent: "create",
      errors: { offering: `Choose a ${form.make === "video" ? "video" : "image"} model` },
      values,
    };
  }
  try {
    const chosen = findOffering(ai_type!, provider!, model!);
    const options = chosen ? readOptions(chosen, form) : {};
    // The same flow as POST /api/generator/generate (docs/api.md §4.1).
    const { row } = await startGeneration(
      { ...services, providers: getGenerationRuntime().providers },
      { userId: user.id, input: { ai_type, provider, model, prompt: parsed.data.prompt, options } },
    );
    // Back to the studio with the prompt and model kept, so the next variation is one click away.
    const q = new URLSearchParams({ created: row.id, model: parsed.data.offering, prompt: parsed.data.prompt });
    return redirect(`/studio?${q}`);
  } catch (error) {
    if (isAppError(error) && error.code === "INSUFFICIENT_CREDITS") {
      const p = error.params as { need: number; have: number };
      return { intent: "create", errors: {}, values, shortfall: p };
    }
    if (isAppError(error)) return { intent: "create", errors: { form: error.message }, values };
    throw error;
  }
}

export default function Studio({ loaderData, actionData }: Route.ComponentProps) {
  const data = loaderData;
  const { tasks, page, pages, total, filter } = data;
  const filtered = Boolean(filter.type || filter.status);
  const running = tasks.some((t) => t.status === "pending" || t.status === "processing");
  const viewable = useMemo<MediaItem[]>(
    () =>
      tasks
        .filter((t) => t.status === "completed" && t.urls[0])
        .map((t) => ({ id: t.id, url: t.urls[0]!, aiType: t.aiType, prompt: t.prompt })),
    [tasks],
  );
  const lightbox = useLightbox(viewable);
  useShowCreated(data.created);

  return (
    <div className="space-y-10">
      <PageHeader
        title="Studio"
        description="Describe it, pick a model, and watch it arrive. Credits are charged only when a result is delivered."
      />
      <Composer data={data} actionData={actionData as ActionData | undefined} />
      <Form method="post" id="studio-checkin" hidden>
        <input type="hidden" name="intent" value="checkin" />
      </Form>

      <section aria-labelledby="history-h" id="gallery" className="scroll-mt-20">
        <div className="mb-4 flex flex-wrap items-end justify-between gap-3">
          <h2 id="history-h" className="text-lg font-semibold tracking-tight" tabIndex={-1}>
            Your gallery <span className="text-sm font-normal text-muted-foreground">({total})</span>
          </h2>
          <Filters filter={filter} />
        </div>
        {/* Always there, so screen readers announce the line when it appears (a live region added with its text is often not read). */}
        <div role="status">
          {running ? (
            <p className="mb-3 flex items-center gap-2 text-sm text-muted-foreground" data-testid="running">
              <Sparkles aria-hidden="true" className="size-4 text-accent" /> Working on it — results appear here by
              themselves.{" "}
              <noscript>
                <Link to={filterHref(filter, page)} className="link" reloadDocument>
                  Refresh
                </Link>
              </noscript>
            </p>
          ) : null}
        </div>
        {tasks.length === 0 ? (
          <EmptyState title={filtered ? "No generations match these filters" : "Nothing yet"} icon={<Sparkles />}>
            {filtered ? (
              <Link to="/studio" className="link">
                Show all generations
              </Link>
            ) : (
              "Your results will appear here. Describe something above and press Generate."
            )}
          </EmptyState>
        ) : (
          // Rows, newest first from the top left (CSS columns read down each column: the second newest sat under the newest).
          <ul
            className="grid grid-cols-1 items-start gap-4 min-[420px]:grid-cols-2 md:grid-cols-3 xl:grid-cols-4"
            aria-label="Gallery"
          >
            {tasks.map((t) => {
              const i = viewable.findIndex((v) => v.id === t.id);
              return (
                <GalleryItem
                  key={t.id}
                  t={t}
                  highlight={t.id === data.created}
                  onOpen={i >= 0 ? () => lightbox.open(i) : undefined}
                />
              );
            })}
          </ul>
        )}
        <Pagination label="Gallery pages" page={page} pages={pages} href={(p) => filterHref(filter, p)} />
      </section>
      {lightbox.element}
    </div>
  );
}
