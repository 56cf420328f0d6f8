import { Clapperboard, ImageIcon, SlidersHorizontal, Wand2 } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Form, useNavigation } from "react-router";
import { ModelOptions } from "~/components/model-options";
import { Button, cn, coverInput, FieldError, Hint, inputClass, Notice } from "~/components/ui";
import type { AiType } from "~/domain/catalog";
import { ModelCard } from "./model-card";
import { OutOfCredits } from "./out-of-credits";
import type { ActionData, Data } from "./types";

export function Composer({ data, actionData }: { data: Data; actionData: ActionData | undefined }) {
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
