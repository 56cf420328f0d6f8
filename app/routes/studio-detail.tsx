import {
  ArrowLeft,
  Ban,
  ChevronLeft,
  ChevronRight,
  Download,
  Eye,
  EyeOff,
  RotateCcw,
  Sparkles,
  TriangleAlert,
} from "lucide-react";
import { useRef } from "react";
import { data, Form, Link } from "react-router";
import { useCancelGeneration } from "~/components/cancel-generation";
import { fileExtension, ResultMedia, resultSize, shapeClass, useLightbox } from "~/components/media";
import { inputTarget, slotLabel } from "~/components/studio/inputs";
import { UseResultForm } from "~/components/studio/result-actions";
import { TileIconSprite } from "~/components/studio/tile-icons";
import {
  Badge,
  Button,
  buttonVariants,
  Card,
  CopyButton,
  cn,
  duration,
  Facts,
  formatDate,
  Notice,
  plural,
} from "~/components/ui";
import {
  describeOptions,
  findOffering,
  IMAGE_OPTION_NAMES,
  offeredModels,
  offeringKey,
  providerName,
} from "~/domain/catalog";
import { galleryNeighbours, setHidden } from "~/domain/generations/gallery.server";
import { isFinished, wasCanceled } from "~/domain/generations/status";
import { chargedCost, getOwnGeneration, parseResultUrls } from "~/domain/generations/views.server";
import { getServices } from "~/http/services.server";
import { requireUiUser } from "~/http/session.server";
import { iso } from "~/lib/clock";
import { isAppError } from "~/lib/errors";
import { taskPreviews } from "~/routes/studio-pictures.server";
import type { Route } from "./+types/studio-detail";

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData ? `${loaderData.gen.prompt.slice(0, 60)} — Studio — Atelier` : "Generation — Atelier" },
];

/** Another user's task looks exactly like a missing one (docs/design.md §1). */
async function own<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (error) {
    if (isAppError(error) && error.code === "GENERATION_NOT_FOUND") throw data("generation not found", { status: 404 });
    throw error;
  }
}

export async function loader({ request, params }: Route.LoaderArgs) {
  const { user } = await requireUiUser(request);
  const { db } = getServices();
  const row = await own(() => getOwnGeneration(db, user.id, params.genId));
  let raw: Record<string, unknown> = {};
  try {
    const o = JSON.parse(row.options) as Record<string, unknown> | null;
    raw = o && typeof o === "object" && !Array.isArray(o) ? o : {};
  } catch {
    raw = {};
  }
  // Pictures show as pictures (beside the result), not as file ids among the options.
  const options = describeOptions(row.aiType, row.provider, row.model, raw)
    .filter((o) => !(IMAGE_OPTION_NAMES as readonly string[]).includes(o.key))
    .map((o): [string, string] => [o.label, o.value]);
  // Edit and Animate switch to a model that takes a picture (the task's own where it does).
  const offered = offeredModels().map((o) => ({
    ...o,
    value: offeringKey(o),
    affordable: true,
  }));
  const offering = offeringKey(row);
  return {
    gen: {
      id: row.id,
      aiType: row.aiType,
      provider: row.provider,
      model: row.model,
      offering,
      label: findOffering(row.aiType, row.provider, row.model)?.label ?? row.model,
      prompt: row.prompt,
      status: row.status,
      mode: row.mode,
      price: row.creditsCost,
      charged: chargedCost(row),
      error: row.errorMessage,
      canceled: wasCanceled(row),
      urls: parseResultUrls(row),
      options,
      inputs: Object.entries(taskPreviews(row)),
      shape: shapeClass(row.aiType, raw),
      size: resultSize(row.aiType, raw),
      hidden: row.hiddenAt !== null,
      createdAt: iso(row.createdAt)!,
      startedAt: iso(row.startedAt),
      completedAt: iso(row.completedAt),
    },
    neighbours: row.hiddenAt ? { newer: null, older: null } : await galleryNeighbours(db, row),
    edit: inputTarget(offered, "edit", offering)?.value ?? null,
    animate: inputTarget(offered, "animate")?.value ?? null,
  };
}

export async function action({ request, params }: Route.ActionArgs) {
  const { user } = await requireUiUser(request);
  const { db, clock } = getServices();
  const form = await request.formData();
  const hide = form.get("intent") === "hide";
  await own(() => setHidden(db, user.id, params.genId, hide, clock));
  return { hidden: hide };
}

export default function GenerationDetail({ loaderData, actionData }: Route.ComponentProps) {
  const { gen, neighbours, edit, animate } = loaderData;
  const picture = gen.aiType === "image" && gen.status === "completed" && gen.urls.length > 0;
  const _running = !isFinished(gen.status);
  const result = useRef<HTMLElement>(null);
  // After a cancel the button is gone: the keyboard goes to the result, which now says how it ended.
  const cancel = useCancelGeneration({ id: gen.id, prompt: gen.prompt, onDone: () => result.current?.focus() });
  const lightbox = useLightbox(gen.urls.map((url) => ({ id: gen.id, url, aiType: gen.aiType, prompt: gen.prompt })));
  const cost =
    gen.status === "completed"
      ? plural(gen.charged, "credit")
      : gen.status === "failed"
        ? `0 credits (${gen.canceled ? "canceled" : "failed"} tasks are free)`
        : `${plural(gen.price, "credit")}, charged when the result is delivered`;
  const facts: [string, React.ReactNode][] = [
    ["Status", <Badge key="s" status={gen.canceled ? "canceled" : gen.status} data-testid="status" />],
    ["Model", `${gen.label} (${gen.model})`],
    ["Provider", `${providerName(gen.provider)}${gen.mode === "simulated" ? " (simulated)" : ""}`],
    ["Type", gen.aiType === "video" ? "Video" : "Image"],
    ["Cost", cost],
    ...gen.options,
    [
      "Created",
      <time key="c" dateTime={gen.createdAt}>
        {formatDate(gen.createdAt, { seconds: true })}
      </time>,
    ],
    [
      "Completed",
      gen.completedAt ? (
        <time key="d" dateTime={gen.completedAt}>
          {formatDate(gen.completedAt, { seconds: true })}
        </time>
      ) : (
        "—"
      ),
    ],
    ["Time taken", duration(gen.createdAt, gen.completedAt)],
  ];
  const reuse = `/studio?${new URLSearchParams({ prompt: gen.prompt, model: gen.offering })}`;
  const nav = buttonVariants({ variant: "secondary", size: "sm" });
  return (
    <div className="space-y-6">
      <TileIconSprite />
      <nav aria-label="Gallery" className="flex flex-wrap items-center justify-between gap-2">
        <Link to="/studio" className={buttonVariants({ variant: "ghost", size: "sm" })}>
          <ArrowLeft aria-hidden="true" /> Studio
        </Link>
        <span className="flex gap-2">
          {neighbours.newer ? (
            <Link to={`/studio/${neighbours.newer}`} className={nav} rel="prev" prefetch="intent">
              <ChevronLeft aria-hidden="true" /> Newer
            </Link>
          ) : null}
          {neighbours.older ? (
            <Link to={`/studio/${neighbours.older}`} className={nav} rel="next" prefetch="intent">
              Older <ChevronRight aria-hidden="true" />
            </Link>
          ) : null}
        </span>
      </nav>

      {gen.hidden ? (
        <Notice kind="info">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <span>
              {actionData?.hidden ? "Removed from your gallery." : "This result is not shown in your gallery."} Its
              history and credits are unchanged.
            </span>
            <Form method="post">
              <Button type="submit" name="intent" value="unhide" size="sm" variant="secondary">
                <Eye aria-hidden="true" /> Put back in the gallery
              </Button>
            </Form>
          </div>
        </Notice>
      ) : null}

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <section aria-labelledby="result-h" className="min-w-0 rounded-3xl" ref={result} tabIndex={-1}>
          <h2 id="result-h" className="sr-only">
            Result
          </h2>
          {gen.status === "completed" ? (
            <div className="space-y-3">
              {gen.urls.map((u, i) => (
                <figure key={u} className="overflow-hidden rounded-3xl border border-border bg-muted">
                  {fileExtension(u) === "mp4" || fileExtension(u) === "webm" ? (
                    <ResultMedia url={u} aiType={gen.aiType} prompt={gen.prompt} fit />
                  ) : (
                    <a
                      href={u}
                      onClick={(e) => {
                        e.preventDefault();
                        lightbox.open(i);
                      }}
                      aria-label={`View full size: ${gen.prompt}`}
                      className="block"
                    >
                      <ResultMedia
                        url={u}
                        aiType={gen.aiType}
                        prompt={gen.prompt}
                        fit
                        size={gen.size}
                        className="mx-auto w-auto max-w-full"
                      />
                    </a>
                  )}
                </figure>
              ))}
            </div>
          ) : gen.status === "failed" ? (
            <div
              className="flex aspect-video flex-col items-center justify-center gap-2 rounded-3xl border border-border bg-muted p-6 text-center"
              role="note"
            >
              {gen.canceled ? (
                <>
                  <Ban aria-hidden="true" className="size-8 text-muted-foreground" />
                  <p className="font-medium">Canceled. No credits were charged.</p>
                </>
              ) : (
                <>
                  <TriangleAlert aria-hidden="true" className="size-8 text-muted-foreground" />
                  <p className="font-medium">This one could not be made. No credits were charged.</p>
                  <p className="max-w-md text-sm text-muted-foreground" data-testid="error-message">
                    {gen.error}
                  </p>
                </>
              )}
            </div>
          ) : (
            <div
              className={cn(
                "shimmer mx-auto flex max-h-[75vh] max-w-full flex-col items-center justify-center gap-3 rounded-3xl border border-border bg-muted",
                gen.shape,
              )}
              role="status"
            >
              <Sparkles aria-hidden="true" className="size-8 animate-pulse text-accent" />
              <p className="font-medium">{gen.status === "pending" ? "Queued…" : "Generating…"}</p>
              <progress
                className="h-1.5 w-1/2 overflow-hidden rounded-full [&::-webkit-progress-bar]:bg-border [&::-webkit-progress-value]:bg-primary"
                aria-label={`Generating (${gen.status})`}
              />
              {cancel.button}
              <noscript>
                <meta httpEquiv="refresh" content="3" />
              </noscript>
            </div>
          )}
        </section>

        <div className="min-w-0 space-y-4">
          <Card>
            <h1 className="text-lg leading-snug font-semibold break-words whitespace-pre-wrap" data-field="Prompt">
              {gen.prompt}
            </h1>
            <div className="mt-4 flex flex-wrap gap-2">
              <Link to={reuse} className={buttonVariants({ size: "sm" })}>
                <RotateCcw aria-hidden="true" /> Reuse prompt
              </Link>
              {gen.urls.map((u, i) => (
                <a key={u} href={u} download className={buttonVariants({ variant: "secondary", size: "sm" })}>
                  <Download aria-hidden="true" /> Download{gen.urls.length > 1 ? ` ${i + 1}` : ""} ({fileExtension(u)})
                </a>
              ))}
              {picture && edit ? <UseResultForm task={gen} kind="edit" to={edit} variant="secondary" navigate /> : null}
              {picture && animate ? (
                <UseResultForm task={gen} kind="animate" to={animate} variant="secondary" navigate />
              ) : null}
              {gen.urls[0] ? <CopyButton text={gen.urls[0]} label="Copy link" /> : null}
              {gen.hidden ? null : (
                <Form method="post">
                  <Button type="submit" name="intent" value="hide" variant="secondary" size="sm">
                    <EyeOff aria-hidden="true" /> Remove from gallery
                  </Button>
                </Form>
              )}
            </div>
          </Card>
          {gen.inputs.length ? (
            <Card title="Started from" id="inputs">
              <ul className="flex flex-wrap gap-3" aria-label="Pictures this started from">
                {gen.inputs.map(([name, url]) => (
                  <li key={name} data-input={name}>
                    <a href={url} className="group block" target="_blank" rel="noreferrer">
                      <img
                        src={url}
                        alt={`${inputLabel(name, gen.aiType)} this started from`}
                        width={112}
                        height={112}
                        loading="lazy"
                        className="size-28 rounded-xl border border-border bg-muted object-contain transition group-hover:opacity-90"
                      />
                      <span className="mt-1 block text-xs text-muted-foreground">{inputLabel(name, gen.aiType)}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </Card>
          ) : null}
          <Card title="Details" id="facts">
            <Facts items={facts} layout="columns" />
            <div className="mt-4 border-t border-border pt-3">
              <p className="text-xs text-muted-foreground">Generation id</p>
              <div className="mt-1 flex flex-wrap items-center justify-between gap-2">
                <code className="font-mono text-xs whitespace-nowrap" data-field="Generation id">
                  {gen.id}
                </code>
                <CopyButton text={gen.id} label="Copy" variant="ghost" />
              </div>
            </div>
          </Card>
        </div>
      </div>
      {lightbox.element}
    </div>
  );
}

const inputLabel = (name: string, aiType: string) =>
  name === "mask" ? "Mask" : slotLabel(name === "image_end" ? "image_end" : "image", aiType);
