/**
 * The composer: the prompt, the model picker (one row), the options behind one toggle, and Generate. With
 * JavaScript it submits through a fetcher, so a Generate adds no history entry and the page stays put (the new
 * result appears at the top of the results below); without, a plain form post and a redirect back.
 * The draft is kept in this browser (draft.ts) and comes back after a reload or a checkout.
 */
import { Clapperboard, ImageIcon, SlidersHorizontal, Wand2 } from "lucide-react";
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { FetcherWithComponents } from "react-router";
import { ModelOptions } from "~/components/model-options";
import { Button, cn, coverInput, FieldError, inputClass, Notice, plural } from "~/components/ui";
import type { AiType } from "~/domain/catalog";
import { ComparePanel } from "./compare-panel";
import { draftOf, readDraft, saveDraft } from "./draft";
import { EnhanceButton } from "./enhance-button";
import { InputChip, pictureIn, useInputUpload } from "./input-picker";
import { type InputValue, inputTarget, needsImage, PICKER_SLOTS, type PickerSlot, slotsOf, takesImage } from "./inputs";
import { useLivePrice } from "./live-price";
import { ModelPicker } from "./model-picker";
import { OutOfCredits } from "./out-of-credits";
import type { ActionData, Data, Draft } from "./types";

export interface DraftRequest {
  draft: Draft;
  /** Changes on every request, so the same draft can be applied twice. */
  nonce: number;
}

export function Composer({
  data,
  actionData,
  fetcher,
  apply,
}: {
  data: Data;
  /** The route's action data (a post without JavaScript). */
  actionData: ActionData | undefined;
  fetcher: FetcherWithComponents<ActionData>;
  /** A draft to put into the composer (Reuse from a result). */
  apply: DraftRequest | null;
}) {
  const answer = fetcher.data ?? actionData;
  const checkin = actionData?.intent === "checkin" ? actionData : undefined;
  const create = answer?.intent === "create" && !answer.created ? answer : undefined;
  const errors = create?.errors ?? {};
  const initialOffering = create?.values.offering || data.initial.offering;
  const [offering, setOffering] = useState(initialOffering);
  const [make, setMake] = useState<AiType>((initialOffering.split("|")[0] as AiType) || data.initial.make);
  // Option values belong to the model they were typed for: another model starts from its own defaults.
  const [options, setOptions] = useState<{ offering: string; values: Record<string, string>; version: number }>({
    offering: initialOffering,
    values: create?.values.options ?? data.initial.options,
    version: 0,
  });
  const busy = fetcher.state === "submitting";
  const formRef = useRef<HTMLFormElement>(null);
  const promptRef = useRef<HTMLTextAreaElement>(null);
  const optionsRef = useRef<HTMLDetailsElement>(null);
  const compareRef = useRef<HTMLDetailsElement>(null);
  const [hydrated, setHydrated] = useState(false);
  // The pictures attached (a file id or an https URL each, with a thumbnail), kept apart from the typed options.
  const [inputs, setInputs] = useState<Partial<Record<PickerSlot, InputValue>>>(() =>
    inputsOf(create?.values ?? { options: data.initial.options, previews: data.initial.previews }),
  );
  const [inputError, setInputError] = useState<string | undefined>();
  const [dragging, setDragging] = useState(false);

  const put = (d: Draft) => {
    const o = data.offerings.find((x) => x.value === d.offering);
    if (!o) return;
    setOffering(o.value);
    setMake(o.aiType);
    setOptions((s) => ({ offering: o.value, values: d.options, version: s.version + 1 }));
    setInputs(inputsOf(d));
    setInputError(undefined);
    if (promptRef.current) promptRef.current.value = d.prompt;
  };

  // After hydration: the draft this browser kept, unless the address brought one (a Reuse link) or an error did.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, on the first render in the browser
  useEffect(() => {
    setHydrated(true);
    if (data.initial.fromUrl || create) return;
    const kept = readDraft();
    if (kept) put(kept);
  }, []);
  // A Reuse from a result.
  // biome-ignore lint/correctness/useExhaustiveDependencies: applied once per request (nonce)
  useEffect(() => {
    if (!apply) return;
    put(apply.draft);
    promptRef.current?.focus({ preventScroll: true });
    formRef.current?.scrollIntoView({ block: "start", behavior: "smooth" });
  }, [apply?.nonce]);

  const selected = data.offerings.find((o) => o.value === offering);
  const optionValues = options.offering === offering ? options.values : {};
  const price = useLivePrice(formRef, selected);
  const attached = Object.keys(inputs).length > 0;
  // A picture attached to a model that takes none: the first one of this kind that does.
  const attach = (slot: PickerSlot, v: InputValue | null, error?: string) => {
    setInputError(error);
    if (!v) return;
    setInputs((s) => ({ ...s, [slot]: v }));
    if (!takesImage(selected)) {
      const to = inputTarget(data.offerings, make === "video" ? "animate" : "edit");
      if (to) setOffering(to.value);
    }
  };
  const uploads = {
    image: useInputUpload("image", (v, e) => attach("image", v, e)),
    image_end: useInputUpload("image_end", (v, e) => attach("image_end", v, e)),
  };
  // The first picture always has a chip; a second (the last frame) once the first is in, where the model takes one.
  const shownSlots = PICKER_SLOTS.filter(
    (s) => s === "image" || inputs[s] || (slotsOf(selected).includes(s) && inputs.image),
  );
  const dropped = (file: File | null) => {
    if (!file) return false;
    const slot = shownSlots.find((s) => !inputs[s]) ?? "image";
    uploads[slot].upload(file);
    return true;
  };
  const uploading = uploads.image.pending || uploads.image_end.pending;
  const needs = needsImage(selected) && !inputs.image && !uploads.image.pending;
  const refuses = attached && !takesImage(selected);
  const choose = (type: AiType) => {
    setMake(type);
    if (!offering.startsWith(`${type}|`)) {
      const first =
        data.offerings.find((o) => o.aiType === type && o.affordable) ?? data.offerings.find((o) => o.aiType === type);
      if (first) setOffering(first.value);
    }
  };
  const previews = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, v.preview]));
  const remember = (e: FormEvent<HTMLFormElement>) => saveDraft({ ...draftOf(e.currentTarget), previews });
  // biome-ignore lint/correctness/useExhaustiveDependencies: a model picked, or a picture, is part of the draft
  useEffect(() => {
    if (hydrated && formRef.current) saveDraft({ ...draftOf(formRef.current), previews });
  }, [offering, hydrated, inputs]);

  // The options and compare panels lie over the results: a click elsewhere, Escape or Generate folds them away.
  useEffect(() => {
    const close = (e: Event) => {
      for (const panel of [optionsRef.current, compareRef.current]) {
        if (!panel?.open) continue;
        if (e instanceof KeyboardEvent ? e.key === "Escape" : !panel.contains(e.target as Node)) panel.open = false;
      }
    };
    document.addEventListener("pointerdown", close);
    document.addEventListener("keydown", close);
    return () => {
      document.removeEventListener("pointerdown", close);
      document.removeEventListener("keydown", close);
    };
  }, []);

  const optionErrors = Object.keys(errors).some((k) => k.startsWith("opt_"));
  return (
    <fetcher.Form
      ref={formRef}
      method="post"
      action="/studio"
      encType="multipart/form-data"
      className={cn(
        "group/composer relative rounded-2xl border border-border bg-surface p-3 shadow-sm sm:p-4",
        dragging && "border-primary ring-2 ring-primary/40",
      )}
      noValidate
      aria-labelledby="create-h"
      onChange={remember}
      onInput={remember}
      onSubmit={() => {
        if (optionsRef.current) optionsRef.current.open = false;
        if (compareRef.current) compareRef.current.open = false;
      }}
      // A picture dropped on the composer or pasted into it is attached like one picked.
      onDragOver={(e) => {
        if (!Array.from(e.dataTransfer.types).includes("Files")) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={(e) => {
        setDragging(false);
        if (dropped(pictureIn(e.dataTransfer))) e.preventDefault();
      }}
      onPaste={(e) => {
        if (dropped(pictureIn(e.clipboardData))) e.preventDefault();
      }}
    >
      <h2 id="create-h" className="sr-only">
        Create
      </h2>
      <input type="hidden" name="intent" value="create" />
      {hydrated ? <input type="hidden" name="via" value="fetch" /> : null}
      <label htmlFor="f-prompt" className="sr-only">
        Prompt
      </label>
      <textarea
        id="f-prompt"
        ref={promptRef}
        name="prompt"
        rows={2}
        required
        maxLength={4000}
        placeholder="Describe what you want to see — a subject, a place, the light, a style…"
        className={cn(
          inputClass,
          "field-sizing-content max-h-60 min-h-16 resize-y rounded-xl border-transparent bg-muted px-3 py-2.5 text-base shadow-none focus-visible:bg-surface",
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
        aria-describedby={errors.prompt ? "f-prompt-error" : undefined}
      />
      {errors.prompt ? <FieldError id="f-prompt-error">{errors.prompt}</FieldError> : null}

      <div className="mt-2 flex items-center gap-2">
        <fieldset className="flex shrink-0 gap-1.5" aria-describedby={inputError ? "f-input-error" : undefined}>
          <legend className="sr-only">Pictures to start from</legend>
          {shownSlots.map((slot) => (
            <InputChip
              key={slot}
              slot={slot}
              aiType={make}
              value={inputs[slot]}
              pending={uploads[slot].pending}
              local={uploads[slot].local}
              invalid={Boolean(errors[`input_${slot}`]) || (slot === "image" && needs && Boolean(errors.form))}
              onPick={(f) => uploads[slot].upload(f)}
              onRemove={() =>
                setInputs((s) => {
                  const { [slot]: _, ...rest } = s;
                  return rest;
                })
              }
            />
          ))}
        </fieldset>
        <fieldset className="shrink-0">
          <legend className="sr-only">What to create</legend>
          <div className="inline-flex rounded-xl bg-muted p-1">
            {(["image", "video"] as const).map((t) => (
              <label
                key={t}
                className="relative flex cursor-pointer items-center gap-1.5 rounded-lg px-2.5 py-1.5 text-sm font-medium text-muted-foreground transition has-[:checked]:bg-surface has-[:checked]:text-foreground has-[:checked]:shadow-sm has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-ring [&_svg]:size-4"
                title={t === "image" ? "Image" : "Video"}
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
                <span className="max-sm:sr-only">{t === "image" ? "Image" : "Video"}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <ModelPicker
          offerings={data.offerings}
          offering={offering}
          onSelect={setOffering}
          error={errors.offering}
          attached={attached}
        />
      </div>
      {errors.offering ? <FieldError id="f-offering-error">{errors.offering}</FieldError> : null}
      {inputError || errors.input_image || errors.input_image_end ? (
        <FieldError id="f-input-error">{inputError ?? errors.input_image ?? errors.input_image_end}</FieldError>
      ) : refuses && selected ? (
        <p className="mt-1.5 text-sm text-danger-soft-foreground" data-testid="input-hint">
          {selected.label} does not take a picture: choose a model marked with a picture, or remove it.
        </p>
      ) : needs && selected ? (
        <p className="mt-1.5 text-sm text-muted-foreground" data-testid="input-hint">
          {selected.label} starts from a picture: add one.
        </p>
      ) : null}

      <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-2">
        {/* Options fold under one toggle; open, they lie over the results below (static position, full width). */}
        <details ref={optionsRef} className="group/opts" open={optionErrors || undefined}>
          <summary
            className="flex cursor-pointer list-none items-center gap-1.5 rounded-lg px-2 py-1.5 text-sm font-medium text-muted-foreground hover:bg-muted hover:text-foreground group-open/opts:bg-muted group-open/opts:text-foreground [&::-webkit-details-marker]:hidden"
            data-testid="options-toggle"
          >
            <SlidersHorizontal aria-hidden="true" className="size-4" />
            Options
          </summary>
          <div className="absolute inset-x-0 z-20 mt-2 rounded-2xl border border-border bg-surface-raised p-4 pt-0 shadow-lg">
            {selected ? (
              <ModelOptions
                key={`${selected.value} ${options.version} ${JSON.stringify(optionValues)}`}
                offering={selected}
                values={optionValues}
                omit={PICKER_SLOTS}
              />
            ) : null}
            <noscript>
              {/* Without JavaScript a chip cannot swap these fields: this reloads the form for the chosen model, keeping what was typed. */}
              <Button
                type="submit"
                formMethod="get"
                formAction="/studio#create-h"
                formNoValidate
                variant="secondary"
                size="sm"
                className="mt-3"
              >
                Show options for the chosen model
              </Button>
            </noscript>
          </div>
        </details>
        <ComparePanel
          offerings={data.offerings}
          make={make}
          initial={create?.compare ?? []}
          error={errors.compare}
          busy={busy}
          hydrated={hydrated}
          panelRef={compareRef}
        />
        {hydrated ? (
          <EnhanceButton
            promptRef={promptRef}
            offer={data.enhance}
            onEnhanced={() => formRef.current && saveDraft({ ...draftOf(formRef.current), previews })}
          />
        ) : null}
        <p className="mr-auto text-xs text-muted-foreground" data-testid="available">
          <strong className="font-semibold text-foreground">{data.balance.available}</strong> credits available ·
          charged only when delivered
        </p>
        <Button
          type="submit"
          size="lg"
          disabled={busy || uploading}
          className="max-sm:flex-1"
          aria-busy={busy || undefined}
        >
          <Wand2 aria-hidden="true" />
          {busy ? "Generating…" : "Generate"}
          {selected && price !== null ? (
            <span className="font-normal" data-testid="generate-price">
              <span aria-hidden="true">· </span>
              <span className="sr-only">(</span>
              {plural(price, "credit")}
              <span className="sr-only">)</span>
            </span>
          ) : null}
        </Button>
      </div>

      {errors.form ? (
        <Notice kind="error" className="mt-3">
          {errors.form}
        </Notice>
      ) : null}
      {create?.shortfall ? (
        <div className="mt-3">
          <OutOfCredits {...create.shortfall} checkedIn={data.checkedIn} />
        </div>
      ) : null}
      {checkin ? (
        <Notice kind={checkin.added ? "success" : "info"} className="mt-3">
          {checkin.text}
        </Notice>
      ) : null}
    </fetcher.Form>
  );
}

/** The pictures a draft carries (`image`, `image_end` options), with the thumbnails it kept. */
function inputsOf(d: Pick<Draft, "options" | "previews">): Partial<Record<PickerSlot, InputValue>> {
  const out: Partial<Record<PickerSlot, InputValue>> = {};
  for (const slot of PICKER_SLOTS) {
    const ref = d.options[slot];
    if (!ref) continue;
    out[slot] = { ref, preview: d.previews?.[slot] ?? (ref.startsWith("https://") ? ref : "") };
  }
  return out;
}
