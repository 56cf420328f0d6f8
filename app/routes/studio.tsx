import { useEffect, useState } from "react";
import { data, Form, redirect, useFetcher } from "react-router";
import { resultSize, shapeClass, tileFlexClass } from "~/components/media";
import { optionFormValues, readOptions } from "~/components/model-options";
import { Composer, type DraftRequest } from "~/components/studio/composer";
import { Gallery } from "~/components/studio/gallery";
import { CREATE_FETCHER, USE_RESULT_FETCHER } from "~/components/studio/result-actions";
import type { ActionData, Draft } from "~/components/studio/types";
import { useShowCreated } from "~/components/studio/use-show-created";
import { useToast } from "~/components/ui";
import { UI_MESSAGES } from "~/domain/account/messages";
import { allOfferings, findOffering, isAiType, offeringKey } from "~/domain/catalog";
import { studioOfferings } from "~/domain/catalog/studio-offerings";
import { checkedInToday, checkIn } from "~/domain/credits/checkin.server";
import { balanceOf } from "~/domain/credits/ledger.server";
import { createDemoModels } from "~/domain/demo/models.server";
import { cancelGeneration } from "~/domain/generations/cancel.server";
import { parseFilter } from "~/domain/generations/filter";
import { listRecent, setHidden } from "~/domain/generations/gallery.server";
import { startGeneration } from "~/domain/generations/start-generation.server";
import { wasCanceled } from "~/domain/generations/status";
import { chargedCost, parseResultUrls } from "~/domain/generations/views.server";
import { startComparison } from "~/domain/studio/compare.server";
import { enhanceOffer, enhancePrompt } from "~/domain/studio/enhance.server";
import { variationSeed } from "~/domain/studio/variation";
import { fieldErrors, StudioSchema } from "~/http/forms";
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { errorBody } from "~/lib/envelope";
import { isAppError } from "~/lib/errors";
import { formPictures, pictureAction, pictureOptions, previewsOf, taskPreviews } from "~/routes/studio-pictures.server";
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
  const offerings = studioOfferings(allOfferings(), (o) => providers.mode(o.provider), config.SIMULATOR_DELAY_MS).map(
    (o) => ({ ...o, affordable: o.credits <= balance.available }),
  );
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
  const initialOptions = optionFormValues(initial, (name) => q.get(name));
  return {
    offerings,
    initial: {
      offering: initial.value,
      make: initial.aiType,
      prompt: (q.get("prompt") ?? "").slice(0, 4000),
      options: initialOptions,
      previews: previewsOf(initialOptions),
      /** The address brought a draft (a Reuse link, or the no-JavaScript model switch): it wins over a kept one. */
      fromUrl: Boolean(q.get("prompt") || q.get("model") || q.get("offering")),
    },
    balance,
    checkedIn: await checkedInToday(db, user.id, clock),
    enhance: enhanceOffer(config),
    created: url.searchParams.get("created"),
    filter: { type: filter.aiType ?? "", status: filter.status ?? "" },
    page,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    total,
    tasks: rows.map((r) => {
      const options = parseOptions(r.options);
      const formOptions = Object.fromEntries(Object.entries(options).map(([k, v]) => [k, String(v)]));
      return {
        id: r.id,
        aiType: r.aiType,
        label: findOffering(r.aiType, r.provider, r.model)?.label ?? r.model,
        offering: offeringKey(r),
        prompt: r.prompt,
        status: r.status,
        mode: r.mode,
        cost: chargedCost(r),
        error: r.errorMessage,
        canceled: wasCanceled(r),
        urls: parseResultUrls(r),
        shape: shapeClass(r.aiType, options),
        tile: tileFlexClass(r.aiType, options),
        size: resultSize(r.aiType, options),
        // Every option as the form writes it, so Reuse and Run again send the same request.
        options: formOptions,
        /** A thumbnail of each picture the task started from. */
        inputs: taskPreviews(r),
        /** Tasks of one Compare share it: the gallery shows them side by side in one row. */
        compareId: r.compareId,
        /** A ThumbHash of the picture (base64), drawn blurred under it until it loads. */
        placeholder: r.placeholder,
      };
    }),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const services = getServices();
  const formData = await request.formData();
  const form = Object.fromEntries(formData);
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
  if (form.intent === "enhance") {
    try {
      const r = await enhancePrompt(
        { db: services.db, clock: services.clock, config: services.config, models: createDemoModels(services.config) },
        { userId: user.id, prompt: String(form.prompt ?? ""), signal: request.signal },
      );
      return { intent: "enhance", prompt: r.prompt };
    } catch (error) {
      if (isAppError(error)) return { intent: "enhance", error: error.message };
      throw error;
    }
  }
  if (form.intent === "upload" || form.intent === "use-result") return pictureAction(user.id, form);
  if (form.intent === "checkin") {
    const r = await checkIn(services.db, user.id, services.clock);
    return {
      intent: "checkin",
      added: r.added,
      text: r.added ? UI_MESSAGES.CHECKIN_ADDED : UI_MESSAGES.CHECKIN_ALREADY,
    };
  }
  // The compare button comes after the form's hidden intent, so its value is the last (the one kept).
  if (form.intent === "compare") return compare(user.id, form, formData.getAll("compare").map(String));
  const [aiType = "", prov = "", mod = ""] = String(form.offering ?? "").split("|");
  const picked = findOffering(aiType, prov, mod);
  // Variation: the same request with a new seed, drawn here, where the model has one.
  if (form.variation && picked) {
    const seed = variationSeed(picked);
    if (seed !== undefined) form.opt_seed = String(seed);
  }
  const values: Draft = {
    offering: String(form.offering ?? ""),
    prompt: String(form.prompt ?? ""),
    options: picked ? optionFormValues(picked, (name) => form[name]) : {},
  };
  // Pictures: posted with the form (without JavaScript), or stored beforehand (`opt_image` holds the file id).
  const refused = await formPictures(user.id, picked, form, values);
  if (refused) return { intent: "create", errors: refused, values };
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
    const options = { ...(chosen ? readOptions(chosen, form) : {}), ...pictureOptions(values.options) };
    // The same flow as POST /api/generator/generate (docs/api.md §4.1).
    const { row } = await startGeneration(
      { ...services, providers: getGenerationRuntime().providers, files: getGenerationRuntime().files },
      { userId: user.id, input: { ai_type, provider, model, prompt: parsed.data.prompt, options } },
    );
    // From the page's script: an answer, and the page stays (no history entry per Generate).
    if (form.via === "fetch") return { intent: "create", errors: {}, values, created: row.id };
    // Without JavaScript: back to the studio with the prompt and model kept, so the next variation is one click away.
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

/** Compare: the prompt on each checked model, created together or not at all (app/domain/studio/compare.server.ts). */
async function compare(userId: string, form: Record<string, FormDataEntryValue>, models: string[]) {
  const services = getServices();
  const values: Draft = { offering: String(form.offering ?? ""), prompt: String(form.prompt ?? ""), options: {} };
  const answer = (extra: Partial<Extract<ActionData, { intent: "create" }>>) => ({
    intent: "create" as const,
    errors: {},
    values,
    compare: models,
    ...extra,
  });
  const parsed = StudioSchema.pick({ prompt: true }).safeParse(form);
  if (!parsed.success) return answer({ errors: fieldErrors(parsed.error) });
  try {
    const { rows } = await startComparison(
      { ...services, providers: getGenerationRuntime().providers },
      { userId, prompt: parsed.data.prompt, models },
    );
    if (form.via === "fetch") return answer({ created: rows[0]!.id });
    const q = new URLSearchParams({ created: rows[0]!.id, model: values.offering, prompt: parsed.data.prompt });
    return redirect(`/studio?${q}`);
  } catch (error) {
    if (isAppError(error) && error.code === "INSUFFICIENT_CREDITS")
      return answer({ shortfall: error.params as { need: number; have: number } });
    if (isAppError(error)) return answer({ errors: { compare: error.message } });
    throw error;
  }
}

export default function Studio({ loaderData, actionData }: Route.ComponentProps) {
  const data = loaderData;
  const fetcher = useFetcher<ActionData>({ key: CREATE_FETCHER });
  const [apply, setApply] = useState<DraftRequest | null>(null);
  const reuse = (draft: Draft) => setApply((r) => ({ draft, nonce: (r?.nonce ?? 0) + 1 }));
  // Edit / Animate from a result: its answer is a draft with the result as the picture.
  const useResult = useFetcher<ActionData>({ key: USE_RESULT_FETCHER });
  const toast = useToast();
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per answer
  useEffect(() => {
    const a = useResult.data;
    if (useResult.state !== "idle" || a?.intent !== "use-result") return;
    if (a.draft) reuse(a.draft);
    else if (a.error) toast({ title: "That result cannot be used as a picture", description: a.error });
  }, [useResult.data, useResult.state]);
  const created = (fetcher.data?.intent === "create" ? fetcher.data.created : undefined) ?? data.created;
  useShowCreated(created ?? null, data.tasks);
  return (
    <div className="space-y-5">
      <h1 className="sr-only">Studio</h1>
      <Composer data={data} actionData={actionData as ActionData | undefined} fetcher={fetcher} apply={apply} />
      <Form method="post" id="studio-checkin" hidden>
        <input type="hidden" name="intent" value="checkin" />
      </Form>
      <Gallery data={data} highlight={created ?? null} onReuse={reuse} />
    </div>
  );
}
