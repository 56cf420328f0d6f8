/**
 * The provider interface that the simulator and every real adapter implement.
 * The job runner only ever talks to these; no provider detail leaks into it.
 *
 * - A `sync` provider returns its results from one call (OpenAI images).
 * - An `async` provider submits a task and returns the upstream task id, which
 *   the runner persists *before* polling, so a restart resumes polling instead
 *   of paying upstream twice (Replicate, Kling, Runway).
 */
import { type AiType, acceptedBy, type OptionSpec, type ProviderName } from "./offering";

export interface GenerationRequest {
  genId: string;
  aiType: AiType;
  provider: ProviderName;
  /** The public model id from the catalog. */
  model: string;
  /** The model id sent upstream (MODEL_MAP may map it; defaults to `model`). */
  upstreamModel: string;
  prompt: string;
  /**
   * The options the model declares in the catalog, handed in by the caller (adapters never look the model up):
   * `declaredOptions` keeps the task's options these accept, and adapters read an option's upstream name here.
   */
  specs: Readonly<Record<string, OptionSpec>>;
  /** The model's name as people read it (the catalog's label), where the caller knows it. */
  label?: string;
  /** The task's options (validated against the catalog at creation; adapters read them through `declaredOptions`). */
  options: Record<string, unknown>;
  /**
   * The pictures given under the model's `image`-type options (`image`, `image_end`, `mask`), resolved by the
   * runtime before dispatch from the stored files (docs/catalog.md "Image inputs"). Adapters read inputs here,
   * never from `options`, where the value is only a file id or the URL the client gave.
   */
  inputs?: Partial<Record<ImageInputName, InputImage>>;
}

export type ImageInputName = "image" | "image_end" | "mask";

/** One stored input picture, as a provider may take it. */
export interface InputImage {
  /** A URL the provider can fetch: a signed, expiring link on PUBLIC_URL, or a presigned S3 URL. */
  url: string;
  /** The type judged from the bytes: `image/png`, `image/jpeg` or `image/webp`. */
  contentType: string;
  width: number;
  height: number;
  /** The stored bytes, for APIs that take a picture inline (base64 or multipart). */
  bytes(): Promise<Uint8Array>;
}

/** The request's options that its model declares in the catalog, with acceptable values only. */
export const declaredOptions = (req: Pick<GenerationRequest, "specs" | "options">) =>
  acceptedBy(req.specs, req.options);

/**
 * A provider's own safety verdict on one result, where its API gives one (fal's `has_nsfw_concepts`, a safety
 * checker's flag): the result pipeline's safety step reads it (app/domain/results/).
 */
export interface ProviderVerdict {
  flagged: boolean;
  /** The provider's own word for what it found, when it says (`nsfw`, `violence`…). */
  category?: string;
}

/** A result: bytes we already have, or a URL Atelier must download (upstream URLs expire). */
export type ResultAsset =
  | { kind: "bytes"; bytes: Uint8Array; contentType: string; verdict?: ProviderVerdict }
  | { kind: "url"; url: string; contentType?: string; verdict?: ProviderVerdict };

/**
 * `readyInMs`: the provider's estimate of how long the job still needs, where it knows (the simulator does): the
 * runner polls again then instead of on its backoff schedule, so a finished job is seen at once.
 */
export type PollResult =
  | { state: "pending"; readyInMs?: number }
  | { state: "running"; readyInMs?: number }
  | { state: "succeeded"; assets: ResultAsset[] }
  | { state: "failed"; message: string };

interface ProviderBase {
  name: ProviderName;
  mode: "live" | "simulated";
}

export interface SyncProvider extends ProviderBase {
  lifecycle: "sync";
  generate(req: GenerationRequest, signal: AbortSignal): Promise<ResultAsset[]>;
}

export interface AsyncProvider extends ProviderBase {
  lifecycle: "async";
  /** `readyInMs`: as on PollResult, the first poll's time where the provider knows it. */
  submit(req: GenerationRequest, signal: AbortSignal): Promise<{ upstreamTaskId: string; readyInMs?: number }>;
  poll(upstreamTaskId: string, req: GenerationRequest, signal: AbortSignal): Promise<PollResult>;
  /**
   * Stops the upstream task (a canceled generation), where the provider has an
   * API for it (Replicate, Runway). Absent: Atelier only stops polling.
   */
  cancel?(upstreamTaskId: string, signal: AbortSignal): Promise<void>;
}

export type Provider = SyncProvider | AsyncProvider;

export type ProviderErrorKind =
  | "auth" // 401/403: credentials wrong or lacking permission — operator must act
  | "rate_limit" // 429
  | "server" // 5xx
  | "bad_request" // 4xx the provider rejected (content policy, bad params)
  | "bad_response" // malformed JSON or an unexpected shape
  | "timeout"
  | "network"
  | "failed"; // the upstream task itself failed

/**
 * An upstream failure. `message` is safe to show the user (it becomes the
 * task's error_message); `operatorHint` goes to the log only.
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly opts: { status?: number; retryable?: boolean; operatorHint?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = "ProviderError";
  }

  /** Whether the same call may be tried again without risking a duplicate upstream job. */
  get retryable(): boolean {
    return (
      this.opts.retryable ??
      (this.kind === "rate_limit" || this.kind === "server" || this.kind === "network" || this.kind === "timeout")
    );
  }
}
