import { type FormEvent, useRef, useState } from "react";
import { Form, useNavigation } from "react-router";
import { Button, Card, labelClass, Notice, PageHeader, Select, TextArea } from "~/components/ui";
import { clientIpOf, requireDemoAccess } from "~/domain/demo/access.server";
import { chargeDemoCall } from "~/domain/demo/billing.server";
import { IMAGE_PROVIDERS, MAX_PROMPT, splitTarget, TEXT_PROVIDERS, targetValue } from "~/domain/demo/catalog";
import { generateDemoImage, generateDemoText } from "~/domain/demo/demo.server";
import {
  createDemoModels,
  type DemoMode,
  demoStorage,
  imageProviderMode,
  textProviderMode,
} from "~/domain/demo/models.server";
import { DemoRequestSchema } from "~/domain/demo/schema";
import { type FieldErrors, fieldErrors } from "~/http/forms";
import { getServices } from "~/http/services.server";
import { getUiUser, requireUiUser } from "~/http/session.server";
import { isAppError } from "~/lib/errors";
import { currentClientIp } from "~/lib/log.server";
import type { Route } from "./+types/playground";

export const meta: Route.MetaFunction = () => [{ title: "Playground — Atelier" }];

/** Open when the demo is (development, or DEMO_PUBLIC); otherwise signed-in people only (docs/design.md §5). */
async function requirePlaygroundUser(request: Request) {
  const { config } = getServices();
  const open = !config.isProduction || config.DEMO_PUBLIC;
  return open ? await getUiUser(request) : await requireUiUser(request);
}

export async function loader({ request }: Route.LoaderArgs) {
  await requirePlaygroundUser(request);
  const { config } = getServices();
  return {
    textModes: Object.fromEntries(TEXT_PROVIDERS.map((p) => [p.name, textProviderMode(config, p.name)])) as Record<
      string,
      DemoMode
    >,
    imageModes: Object.fromEntries(IMAGE_PROVIDERS.map((p) => [p.name, imageProviderMode(config, p.name)])) as Record<
      string,
      DemoMode
    >,
  };
}

type ActionData = {
  intent: "text" | "image";
  errors?: FieldErrors;
  values?: { target: string; prompt: string };
  text?: string;
  imageUrls?: string[];
};

// Without JavaScript: the text form lands here and gets the whole reply; the image form always does.
export async function action({ request }: Route.ActionArgs): Promise<ActionData> {
  const ui = await requirePlaygroundUser(request);
  const services = getServices();
  const form = await request.formData();
  const intent = form.get("intent") === "image" ? "image" : "text";
  const values = { target: String(form.get("target") ?? ""), prompt: String(form.get("prompt") ?? "") };
  const parsed = DemoRequestSchema.safeParse({ ...splitTarget(values.target), prompt: values.prompt });
  if (!parsed.success) return { intent, values, errors: fieldErrors(parsed.error) };
  try {
    const ip = clientIpOf(services.config, request, currentClientIp());
    await requireDemoAccess(services, { userId: ui?.user.id ?? null, ip });
    // A live call is paid here exactly as on the JSON endpoints (docs/design.md §5).
    const charge = await chargeDemoCall(services, intent, parsed.data, ui?.user.id ?? null, request.signal);
    const models = createDemoModels(services.config);
    if (intent === "text") {
      const r = await charge.run(() => generateDemoText({ models }, parsed.data, request.signal));
      return { intent, values, text: r.text };
    }
    const r = await charge.run(() =>
      generateDemoImage({ models, storage: demoStorage(services.config) }, parsed.data, request.signal),
    );
    return { intent, values, imageUrls: r.result_urls };
  } catch (error) {
    if (isAppError(error)) return { intent, values, errors: { form: error.message } };
    throw error;
  }
}

function PromptField({
  id,
  name,
  error,
  defaultValue,
}: {
  id: string;
  name: string;
  error?: string;
  defaultValue?: string;
}) {
  return (
    <TextArea
      id={id}
      label="Prompt"
      name={name}
      rows={4}
      required
      maxLength={MAX_PROMPT}
      defaultValue={defaultValue}
      error={error}
    />
  );
}

/** The models of `providers` as `<option>`s grouped per provider, each group saying whether it is live or simulated. */
function TargetOptions({
  providers,
  modes,
}: {
  providers: typeof TEXT_PROVIDERS | typeof IMAGE_PROVIDERS;
  modes: Record<string, DemoMode>;
}) {
  return providers.map((p) => (
    <optgroup key={p.name} label={`${p.label} (${modes[p.name]})`}>
      {p.models.map((m) => (
        <option key={m} value={targetValue(p.name, m)}>
          {p.label} — {m}
        </option>
      ))}
    </optgroup>
  ));
}

export default function Playground({ loaderData, actionData }: Route.ComponentProps) {
  const { textModes, imageModes } = loaderData;
  const data = actionData as ActionData | undefined;
  const textData = data?.intent === "text" ? data : undefined;
  const imageData = data?.intent === "image" ? data : undefined;
  const navigation = useNavigation();
  const imageBusy = navigation.state === "submitting" && navigation.formData?.get("intent") === "image";

  const [streamed, setStreamed] = useState<string | null>(null);
  const [chunks, setChunks] = useState(0);
  const [streaming, setStreaming] = useState(false);
  const [streamError, setStreamError] = useState<string | null>(null);
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const abortRef = useRef<AbortController | null>(null);

  // With JavaScript the text form streams through fetch; without it, it posts and the action answers in full.
  async function onStream(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const { provider, model } = splitTarget(String(form.get("target") ?? ""));
    const parsed = DemoRequestSchema.safeParse({ provider, model, prompt: form.get("prompt") ?? "" });
    setStreamError(null);
    if (!parsed.success) {
      setClientErrors(fieldErrors(parsed.error));
      return;
    }
    setClientErrors({});
    abortRef.current?.abort();
    const abort = new AbortController();
    abortRef.current = abort;
    setStreamed("");
    setChunks(0);
    setStreaming(true);
    try {
      const res = await fetch("/api/demo/gen-stream-text", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(parsed.data),
        signal: abort.signal,
      });
      if ((res.headers.get("content-type") ?? "").includes("application/json")) {
        const body = (await res.json()) as { message?: string };
        setStreamError(body.message ?? `HTTP ${res.status}`);
        setStreamed(null);
        return;
      }
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const piece = decoder.decode(value, { stream: true });
        if (piece) {
          setStreamed((s) => (s ?? "") + piece);
          setChunks((n) => n + 1);
        }
      }
    } catch (_error) {
      if (!abort.signal.aborted) setStreamError("The connection was interrupted.");
    } finally {
      if (abortRef.current === abort) setStreaming(false);
    }
  }

  const textErrors = { ...(textData?.errors ?? {}), ...clientErrors };
  const shownText = streamed ?? textData?.text ?? null;

  return (
    <div className="space-y-6">
      <PageHeader
        title="Playground"
        description="Try the demo models. Providers without a configured key answer from the built-in simulator. Demo calls cost no credits."
      />

      <Card title="Text" id="text">
        <Form method="post" className="space-y-4" noValidate onSubmit={onStream}>
          <input type="hidden" name="intent" value="text" />
          {textErrors.form ? <Notice kind="error">{textErrors.form}</Notice> : null}
          <Select
            id="text-target"
            label="Model"
            name="target"
            defaultValue={textData?.values?.target}
            error={textErrors.provider ?? textErrors.model}
          >
            <TargetOptions providers={TEXT_PROVIDERS} modes={textModes} />
          </Select>
          <PromptField
            id="text-prompt"
            name="prompt"
            error={textErrors.prompt}
            defaultValue={textData?.values?.prompt}
          />
          <div className="flex gap-3">
            <Button type="submit" disabled={streaming}>
              {streaming ? "Generating…" : "Generate text"}
            </Button>
            {streaming ? (
              <Button variant="secondary" onClick={() => abortRef.current?.abort()}>
                Stop
              </Button>
            ) : null}
          </div>
        </Form>
        {streamError ? (
          <Notice kind="error" className="mt-4">
            {streamError}
          </Notice>
        ) : null}
        <div className="mt-4">
          <h3 className={labelClass}>Output</h3>
          <output
            aria-live="polite"
            aria-busy={streaming}
            data-testid="text-output"
            data-chunks={chunks}
            className="mt-1.5 block min-h-16 rounded-xl border border-border bg-muted p-3.5 text-sm break-words whitespace-pre-wrap"
          >
            {shownText ?? ""}
          </output>
        </div>
      </Card>

      <Card title="Image" id="image">
        <Form method="post" className="space-y-4" noValidate>
          <input type="hidden" name="intent" value="image" />
          {imageData?.errors?.form ? <Notice kind="error">{imageData.errors.form}</Notice> : null}
          <Select id="image-target" label="Image model" name="target" defaultValue={imageData?.values?.target}>
            <TargetOptions providers={IMAGE_PROVIDERS} modes={imageModes} />
          </Select>
          <PromptField
            id="image-prompt"
            name="prompt"
            error={imageData?.errors?.prompt}
            defaultValue={imageData?.values?.prompt}
          />
          <Button type="submit" disabled={imageBusy}>
            {imageBusy ? "Generating…" : "Generate image"}
          </Button>
        </Form>
        {imageData?.imageUrls?.length ? (
          <div className="mt-4 grid grid-cols-1 gap-4 sm:grid-cols-2">
            {imageData.imageUrls.map((url) => (
              <a key={url} href={url} className="block">
                <img
                  src={url}
                  alt={`Generated: ${imageData.values?.prompt ?? ""}`}
                  className="h-auto w-full rounded-xl border border-border"
                />
              </a>
            ))}
          </div>
        ) : null}
      </Card>
    </div>
  );
}
