import {
  Ban,
  Clapperboard,
  Download,
  EyeOff,
  ImageIcon,
  RotateCcw,
  SlidersHorizontal,
  Sparkles,
  Timer,
  TriangleAlert,
  Wand2,
} from "lucide-react";
import { useEffect, useMemo, useRef, useState } from "react";
import { Form, Link, redirect, useFetcher, useNavigation, useSubmit } from "react-router";
import { type CancelResult, useCancelGeneration } from "~/components/cancel-generation";
import { isVideoFile, type MediaItem, ResultMedia, shapeClass, useLightbox } from "~/components/media";
import { ModelOptions, optionFormValues, readOptions } from "~/components/model-options";
import {
  Badge,
  Button,
  buttonVariants,
  CopyButton,
  cn,
  coverInput,
  EmptyState,
  FieldError,
  formatDate,
  Hint,
  inputClass,
  Notice,
  PageHeader,
  Pagination,
  plural,
  useToast,
} from "~/components/ui";
import { UI_MESSAGES } from "~/domain/account/messages";
import {
  type AiType,
  CATALOG,
  findOffering,
  isAiType,
  providerName,
  sampleImage,
  speedHint,
  typicalSecondsHere,
} from "~/domain/catalog";
import { checkedInToday, checkIn } from "~/domain/credits/checkin.server";
import { balanceOf } from "~/domain/credits/ledger.server";
import { cancelGeneration } from "~/domain/generations/cancel.server";
import { createGeneration } from "~/domain/generations/create.server";
import { parseFilter } from "~/domain/generations/filter";
import { listRecent, setHidden } from "~/domain/generations/gallery.server";
import { getGenerationRuntime } from "~/domain/generations/runtime.server";
import { isFinished, wasCanceled } from "~/domain/generations/status";
import { validateGenerateInput } from "~/domain/generations/validate.server";
import { chargedCost, parseResultUrls } from "~/domain/generations/views.server";
import { iso } from "~/lib/clock";
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

type ActionData =
  | {
      intent: "create";
      errors: Record<string, string | undefined>;
      values: { offering: string; prompt: string; options: Record<string, string> };
      shortfall?: { need: number; have: number };
    }
  | { intent: "hide"; hidden: boolean; id: string }
  | { intent: "checkin"; added: boolean; text: string }
  | CancelResult;

export async function action({ request }: Route.ActionArgs): Promise<ActionData | Response> {
  const { user } = await requireUiUser(request);
  const services = getServices();
  const form = Object.fromEntries(await request.formData());
  if (form.intent === "hide" || form.intent === "unhide") {
    const row = await setHidden(
      services.db,
      user.id,
      String(form.gen_id ?? ""),
      form.intent === "hide",
      services.clock,
    );
    return { intent: "hide", hidden: row.hiddenAt !== null, id: row.id };
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
    const input = validateGenerateInput({ ai_type, provider, model, prompt: parsed.data.prompt, options });
    const mode = getGenerationRuntime().providers.mode(input.offering.provider);
    const row = await createGeneration(
      services.db,
      { userId: user.id, input, mode, config: services.config },
      services.clock,
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

type Data = Route.ComponentProps["loaderData"];
type Offering = Data["offerings"][number];
type Task = Data["tasks"][number];

function filterHref(filter: { type: string; status: string }, page = 1) {
  const q = new URLSearchParams();
  if (filter.type) q.set("type", filter.type);
  if (filter.status) q.set("status", filter.status);
  if (page > 1) q.set("page", String(page));
  const s = q.toString();
  // To the gallery, not the top of the studio: paging or filtering used to land on the composer.
  return `/studio${s ? `?${s}` : ""}#gallery`;
}

const _PROVIDER_SWATCH: Record<string, string> = {
  openai: "from-emerald-400 to-teal-600",
  replicate: "from-orange-400 to-rose-600",
  kling: "from-sky-400 to-indigo-600",
  runway: "from-fuchsia-400 to-violet-700",
};

/**
 * A model to pick: its sample, name and provider, typical time, price and mode. On a phone it is one
 * compact row (a small sample beside the text); from `sm` up a tile with the sample on top.
 */
function ModelCard({ o, checked, onSelect }: { o: Offering; checked: boolean; onSelect: () => void }) {
  const id = `m-${o.value.replace(/[^a-z0-9]+/gi, "-")}`;
  const provider = providerName(o.provider);
  return (
    <label
      className={cn(
        "group relative flex min-w-0 cursor-pointer items-center gap-3 rounded-2xl border border-border bg-surface p-2 transition hover:border-input sm:flex-col sm:items-stretch sm:gap-2 sm:pb-3",
        "has-[:checked]:border-primary has-[:checked]:ring-2 has-[:checked]:ring-primary/30 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-ring",
      )}
      data-offering={o.value}
    >
      <input
        type="radio"
        name="offering"
        value={o.value}
        checked={checked}
        onChange={onSelect}
        className={coverInput}
        aria-labelledby={`${id}-n ${id}-p`}
        aria-describedby={[`${id}-d`, `${id}-t`, o.affordable ? null : `${id}-x`].filter(Boolean).join(" ")}
      />
      <span className="relative block w-24 shrink-0 overflow-hidden rounded-xl bg-muted sm:w-auto">
        <img
          src={o.sampleImage.src}
          width={o.sampleImage.width}
          height={o.sampleImage.height}
          alt={o.sampleImage.alt}
          loading="lazy"
          decoding="async"
          className="block aspect-[4/3] h-auto w-full object-cover"
        />
        <Badge
          tone="neutral"
          className="pointer-events-none absolute bottom-1 left-1 gap-0.5 bg-black/70 px-1.5 text-[0.625rem] text-white sm:bottom-1.5 sm:left-1.5 sm:gap-1 sm:px-2.5 sm:text-xs"
        >
          {o.aiType === "video" ? <Clapperboard aria-hidden="true" /> : <ImageIcon aria-hidden="true" />}
          Sample
        </Badge>
      </span>
      <span className="flex min-w-0 flex-1 flex-col gap-1.5 px-1 sm:gap-2">
        <span className="min-w-0">
          <span id={`${id}-n`} className="block truncate text-sm font-semibold">
            {o.label}
          </span>
          <span className="flex min-w-0 items-center gap-1.5 text-xs text-muted-foreground">
            <span id={`${id}-p`} className="truncate">
              {provider}
            </span>
            <span aria-hidden="true">·</span>
            <span
              id={`${id}-t`}
              className="inline-flex shrink-0 items-center gap-1"
              title={`Typically ${o.speed.slice(1)} on ${provider}`}
            >
              <Timer aria-hidden="true" className="size-3.5" />
              <span className="sr-only">typical time </span>
              {o.speed}
            </span>
          </span>
        </span>
        <span id={`${id}-d`} className="flex flex-wrap items-center gap-1.5">
          <Badge tone={o.affordable ? "accent" : "danger"}>{plural(o.credits, "credit")}</Badge>
          <Badge status={o.mode}>{o.mode === "live" ? "Live" : "Simulated"}</Badge>
        </span>
        {o.affordable ? null : (
          <span id={`${id}-x`} className="text-xs text-danger-soft-foreground">
            Not enough credits
          </span>
        )}
      </span>
    </label>
  );
}

function OutOfCredits({ need, have, checkedIn }: { need: number; have: number; checkedIn: boolean }) {
  return (
    <div
      role="alert"
      className="rounded-2xl border border-danger/30 bg-danger-soft p-4 text-sm text-danger-soft-foreground"
      data-testid="out-of-credits"
    >
      <p className="flex items-center gap-2 font-semibold">
        <TriangleAlert aria-hidden="true" className="size-4" />
        Not enough credits for this model
      </p>
      <p className="mt-1">
        It costs {plural(need, "credit")} and you have {have} available. Pick a cheaper model, or get more credits:
      </p>
      <div className="mt-3 flex flex-wrap gap-2">
        {checkedIn ? null : (
          <Button type="submit" form="studio-checkin" size="sm">
            Check in for 1 free credit
          </Button>
        )}
        <Link
          to={`/pricing?need=${need}`}
          className={buttonVariants({ variant: checkedIn ? "primary" : "secondary", size: "sm" })}
        >
          Buy credits
        </Link>
      </div>
    </div>
  );
}

function Composer({ data, actionData }: { data: Data; actionData: ActionData | undefined }) {
  const create = actionData?.intent === "create" ? actionData : undefined;
  const errors = create?.errors ?? {};
  const [make, setMake] = useState<AiType>((create?.values.offering.split("|")[0] as AiType) || data.initial.make);
  const [offering, setOffering] = useState(create?.values.offering || data.initial.offering);
  const busy = useNavigation().formData?.get("intent") === "create";
  const promptRef = useRef<HTMLTextAreaElement>(null);
  // A "reuse prompt" link brings a new prompt and model: show them.
  useEffect(() => {
    setMake(data.initial.make);
    setOffering(data.initial.offering);
    if (promptRef.current && data.initial.prompt) promptRef.current.value = data.initial.prompt;
  }, [data.initial.make, data.initial.offering, data.initial.prompt]);

  const selected = data.offerings.find((o) => o.value === offering);
  // What was typed into the options comes back after an error or a no-JavaScript model switch.
  const optionValues =
    create?.values.offering === offering
      ? create.values.options
      : offering === data.initial.offering
        ? data.initial.options
        : {};
  const choose = (type: AiType) => {
    setMake(type);
    if (!offering.startsWith(`${type}|`)) {
      const first =
        data.offerings.find((o) => o.aiType === type && o.affordable) ?? data.offerings.find((o) => o.aiType === type);
      if (first) setOffering(first.value);
    }
  };

  return (
    <Form
      method="post"
      className="group/composer rounded-3xl border border-border bg-surface p-4 shadow-sm sm:p-5"
      noValidate
      aria-labelledby="create-h"
    >
      <h2 id="create-h" className="sr-only">
        Create
      </h2>
      <input type="hidden" name="intent" value="create" />
      <div className="flex flex-wrap items-center justify-between gap-3">
        <fieldset>
          <legend className="sr-only">What to create</legend>
          <div className="inline-flex rounded-full bg-muted p-1">
            {(["image", "video"] as const).map((t) => (
              <label
                key={t}
                className="relative flex cursor-pointer items-center gap-1.5 rounded-full px-4 py-1.5 text-sm font-medium text-muted-foreground transition has-[:checked]:bg-surface has-[:checked]:text-foreground has-[:checked]:shadow-sm has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-ring [&_svg]:size-4"
              >
                <input
                  type="radio"
                  name="make"
                  value={t}
                  id={`make-${t}`}
                  checked={make === t}
                  onChange={() => choose(t)}
                  className={coverInput}
                />
                {t === "image" ? <ImageIcon aria-hidden="true" /> : <Clapperboard aria-hidden="true" />}
                {t === "image" ? "Image" : "Video"}
              </label>
            ))}
          </div>
        </fieldset>
        <p className="text-sm text-muted-foreground" data-testid="available">
          <strong className="font-semibold text-foreground">{data.balance.available}</strong> credits available
          {data.balance.held ? ` · ${data.balance.held} held by running tasks` : ""}
        </p>
      </div>

      <div className="mt-4">
        <label htmlFor="f-prompt" className="sr-only">
          Prompt
        </label>
        <textarea
          id="f-prompt"
          ref={promptRef}
          name="prompt"
          rows={3}
          required
          maxLength={4000}
          placeholder="Describe what you want to see — a subject, a place, the light, a style…"
          className={cn(
            inputClass,
            "resize-y rounded-2xl border-transparent bg-muted px-4 py-3 text-base shadow-none focus-visible:bg-surface",
          )}
          defaultValue={create?.values.prompt ?? data.initial.prompt}
          onKeyDown={(e) => {
            // Ctrl+Enter (⌘+Enter on a Mac) generates from the prompt, as in the chat and media apps people know.
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !busy) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
          aria-invalid={errors.prompt ? true : undefined}
          aria-describedby={errors.prompt ? "f-prompt-error" : "f-prompt-hint"}
        />
        {errors.prompt ? (
          <FieldError id="f-prompt-error">{errors.prompt}</FieldError>
        ) : (
          <Hint id="f-prompt-hint">
            Up to 4000 characters. Credits are charged only when a result is delivered.{" "}
            <span className="max-sm:hidden [@media(hover:none)]:hidden">
              <kbd className="font-sans">Ctrl</kbd>+<kbd className="font-sans">Enter</kbd> generates.
            </span>
          </Hint>
        )}
      </div>

      <fieldset className="mt-4" aria-describedby={errors.offering ? "f-offering-error" : undefined}>
        <legend className="mb-2 text-sm font-medium">Model</legend>
        {(["image", "video"] as const).map((t) => (
          <div
            key={t}
            data-type={t}
            className={cn(
              "grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-4",
              // Without JavaScript the toggle still switches the cards (CSS :has).
              t === "image"
                ? "group-has-[#make-video:checked]/composer:hidden"
                : "group-has-[#make-image:checked]/composer:hidden",
            )}
          >
            {data.offerings
              .filter((o) => o.aiType === t)
              .map((o) => (
                <ModelCard key={o.value} o={o} checked={offering === o.value} onSelect={() => setOffering(o.value)} />
              ))}
          </div>
        ))}
        {errors.offering ? <FieldError id="f-offering-error">{errors.offering}</FieldError> : null}
        <noscript>
          {/* Without JavaScript a card cannot swap the options below: this reloads the form for the chosen model, keeping what was typed. */}
          <Button
            type="submit"
            formMethod="get"
            formAction="/studio#create-h"
            formNoValidate
            variant="secondary"
            size="sm"
            className="mt-3"
          >
            <SlidersHorizontal aria-hidden="true" />
            Show options for the chosen model
          </Button>
        </noscript>
      </fieldset>
      {selected ? (
        <ModelOptions
          key={`${selected.value} ${JSON.stringify(optionValues)}`}
          offering={selected}
          values={optionValues}
        />
      ) : null}

      {errors.form ? (
        <Notice kind="error" className="mt-4">
          {errors.form}
        </Notice>
      ) : null}
      {create?.shortfall ? (
        <div className="mt-4">
          <OutOfCredits {...create.shortfall} checkedIn={data.checkedIn} />
        </div>
      ) : null}
      {actionData?.intent === "checkin" ? (
        <Notice kind={actionData.added ? "success" : "info"} className="mt-4">
          {actionData.text}
        </Notice>
      ) : null}

      <div className="mt-4 flex justify-end">
        <Button type="submit" size="lg" disabled={busy} className="w-full sm:w-auto">
          <Wand2 aria-hidden="true" />
          {busy ? "Starting…" : "Generate"}
        </Button>
      </div>
    </Form>
  );
}

const hideKey = (id: string) => `hide-${id}`;

/**
 * Puts a removed result back from the toast. A submit of the studio page (which stays), not of the card:
 * the card is gone by the time someone presses Undo.
 */
function useUndoHide() {
  const submit = useSubmit();
  return (id: string) =>
    void submit(
      { intent: "unhide", gen_id: id },
      { method: "post", action: "/studio", navigate: false, fetcherKey: `unhide-${id}` },
    );
}

function HideButton({ task, onHide }: { task: Task; onHide: () => void }) {
  const fetcher = useFetcher<ActionData>({ key: hideKey(task.id) });
  const toast = useToast();
  const undo = useUndoHide();
  return (
    <fetcher.Form
      method="post"
      onSubmit={() => {
        onHide();
        toast({
          title: "Removed from your gallery",
          description: "Its history and credits are unchanged.",
          action: { label: "Undo", onClick: () => undo(task.id) },
        });
      }}
    >
      <input type="hidden" name="gen_id" value={task.id} />
      <Button
        type="submit"
        name="intent"
        value="hide"
        variant="secondary"
        size="icon-sm"
        aria-label={`Remove from gallery: ${task.prompt}`}
        title="Remove from gallery"
      >
        <EyeOff aria-hidden="true" />
      </Button>
    </fetcher.Form>
  );
}

function reuseHref(t: Pick<Task, "prompt" | "offering">) {
  return `/studio?${new URLSearchParams({ prompt: t.prompt, model: t.offering })}#create-h`;
}

function GalleryItem({ t, highlight, onOpen }: { t: Task; highlight: boolean; onOpen?: () => void }) {
  const url = t.urls[0];
  const running = !isFinished(t.status);
  const item = useRef<HTMLLIElement>(null);
  // After a cancel the button is gone: keep the keyboard where it was, on this result.
  const cancel = useCancelGeneration({ id: t.id, prompt: t.prompt, onDone: () => item.current?.focus() });
  // A result that finishes while the keyboard is on its Cancel button takes that button away: keep the keyboard on the result.
  const focusInside = useRef(false);
  const wasRunning = useRef(running);
  useEffect(() => {
    if (
      wasRunning.current &&
      !running &&
      focusInside.current &&
      (!document.activeElement || document.activeElement === document.body)
    )
      item.current?.focus();
    wasRunning.current = running;
  }, [running]);
  // Removed at once (the answer and the re-read follow); the keyboard moves on to the next result.
  const hiding = useFetcher({ key: hideKey(t.id) }).state !== "idle";
  const onHide = () => {
    const li = item.current;
    const next = (li?.nextElementSibling ?? li?.previousElementSibling) as HTMLElement | null;
    (next ?? document.getElementById("history-h"))?.focus();
  };
  return (
    <li
      ref={item}
      tabIndex={-1}
      className={cn(
        "group relative overflow-hidden rounded-2xl border border-border bg-surface focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
        highlight && "ring-2 ring-primary",
      )}
      data-gen-id={t.id}
      data-status={t.status}
      hidden={hiding}
      onFocus={() => (focusInside.current = true)}
      onBlur={(e) => {
        // Leaving for somewhere else; a removed button blurs towards nothing (relatedTarget null) and does not count.
        if (e.relatedTarget && !e.currentTarget.contains(e.relatedTarget)) focusInside.current = false;
      }}
      aria-label={`Generation: ${t.prompt}`}
    >
      {t.status === "completed" && url ? (
        <div className="relative">
          {isVideoFile(url) ? (
            <ResultMedia url={url} aiType={t.aiType} prompt={t.prompt} />
          ) : (
            <a
              href={`/studio/${t.id}`}
              onClick={(e) => {
                if (!onOpen || e.metaKey || e.ctrlKey || e.shiftKey) return;
                e.preventDefault();
                onOpen();
              }}
              className="block focus-visible:outline-offset-[-4px]"
              aria-label={`View larger: ${t.prompt}`}
            >
              <ResultMedia url={url} aiType={t.aiType} prompt={t.prompt} />
            </a>
          )}
          {t.aiType === "video" ? (
            <Badge tone="neutral" className="pointer-events-none absolute top-2 left-2 bg-black/60 text-white">
              <Clapperboard aria-hidden="true" /> Video
            </Badge>
          ) : null}
          {/* Actions: on hover or focus with a mouse, always on touch screens. */}
          <div className="absolute top-2 right-2 flex gap-1.5 opacity-100 transition group-focus-within:opacity-100 [@media(hover:hover)]:opacity-0 [@media(hover:hover)]:group-hover:opacity-100">
            <a
              href={url}
              download
              className={buttonVariants({ variant: "secondary", size: "icon-sm" })}
              aria-label={`Download: ${t.prompt}`}
              title="Download"
            >
              <Download aria-hidden="true" />
            </a>
            <HideButton task={t} onHide={onHide} />
          </div>
        </div>
      ) : (
        <div
          className={cn(
            "relative flex w-full flex-col items-center justify-center gap-3 bg-muted p-4 text-center",
            t.shape,
            running && "shimmer",
          )}
        >
          {running ? (
            <>
              <Sparkles aria-hidden="true" className="size-6 animate-pulse text-accent" />
              <p className="text-sm font-medium">{t.status === "pending" ? "Queued…" : "Generating…"}</p>
              <progress
                className="h-1.5 w-2/3 overflow-hidden rounded-full [&::-webkit-progress-bar]:bg-border [&::-webkit-progress-value]:bg-primary"
                aria-label={`Generating (${t.status})`}
              />
              {cancel.button}
            </>
          ) : (
            <>
              {t.canceled ? (
                <Ban aria-hidden="true" className="size-6 text-muted-foreground" />
              ) : (
                <TriangleAlert aria-hidden="true" className="size-6 text-muted-foreground" />
              )}
              <p className="text-sm font-medium">{t.canceled ? "Canceled" : "Could not be made"}</p>
              <p className="text-xs text-muted-foreground">No credits were charged.</p>
            </>
          )}
        </div>
      )}
      <div className="space-y-2 p-3">
        <p className="line-clamp-2 text-sm break-words">
          <Link to={`/studio/${t.id}`} className="hover:underline" aria-label={`Details: ${t.prompt}`}>
            {t.prompt}
          </Link>
        </p>
        {t.status === "failed" && t.error && !t.canceled ? (
          <p className="line-clamp-2 text-xs text-danger-soft-foreground" role="note">
            {t.error}
          </p>
        ) : null}
        <div className="flex flex-wrap items-center gap-1.5 text-xs text-muted-foreground">
          <Badge status={t.canceled ? "canceled" : t.status} data-testid="status" />
          {t.mode === "simulated" ? <Badge status="simulated">Simulated</Badge> : null}
          <span className="truncate">
            {t.label} · {plural(t.cost, "credit")}
          </span>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-1">
          <time className="text-xs text-muted-foreground" dateTime={t.createdAt}>
            {formatDate(t.createdAt)}
          </time>
          <span className="flex gap-1">
            <Link
              to={reuseHref(t)}
              className={buttonVariants({ variant: "ghost", size: "sm" })}
              aria-label={`Reuse prompt: ${t.prompt}`}
            >
              <RotateCcw aria-hidden="true" /> Reuse
            </Link>
            {url ? <CopyButton text={url} label="Link" variant="ghost" size="sm" /> : null}
          </span>
        </div>
      </div>
    </li>
  );
}

function Filters({ filter }: { filter: Data["filter"] }) {
  const pill = (active: boolean) =>
    cn(
      "rounded-full px-2.5 py-1 text-sm font-medium transition sm:px-3",
      active ? "bg-foreground text-background" : "text-muted-foreground hover:bg-muted hover:text-foreground",
    );
  const types = [
    ["", "All"],
    ["image", "Images"],
    ["video", "Videos"],
  ] as const;
  const statuses = [
    ["", "Any status"],
    ["completed", "Completed"],
    ["running", "Running"],
    ["failed", "Failed"],
  ] as const;
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
      <nav aria-label="Filter by type" className="flex gap-1">
        {types.map(([v, label]) => (
          <Link
            key={label}
            to={filterHref({ ...filter, type: v })}
            className={pill(filter.type === v)}
            aria-current={filter.type === v ? "true" : undefined}
          >
            {label}
          </Link>
        ))}
      </nav>
      <nav aria-label="Filter by status" className="flex flex-wrap gap-1">
        {statuses.map(([v, label]) => (
          <Link
            key={label}
            to={filterHref({ ...filter, status: v })}
            className={pill(filter.status === v)}
            aria-current={filter.status === v ? "true" : undefined}
          >
            {label}
          </Link>
        ))}
      </nav>
    </div>
  );
}

/**
 * Right after Generate the new result is below the composer, out of sight (on a phone a whole screen
 * down): bring it into view and put the keyboard on it, where its Cancel button is. Once per task, not
 * on every live re-read of the page.
 */
function useShowCreated(created: string | null) {
  const shown = useRef<string | null>(null);
  useEffect(() => {
    if (!created || shown.current === created) return;
    shown.current = created;
    const el = document.querySelector<HTMLElement>(`[data-gen-id="${CSS.escape(created)}"]`);
    if (!el) return;
    el.scrollIntoView({
      block: "center",
      behavior: window.matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth",
    });
    el.focus({ preventScroll: true });
  }, [created]);
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
