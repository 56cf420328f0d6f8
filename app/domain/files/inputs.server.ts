/**
 * A task's image inputs at creation (docs/catalog.md "Image inputs"): each `image`-type option's value becomes a file
 * of the user — a `file_…` id must be one of theirs; an `https://` URL is fetched now through the outbound guard
 * (public addresses only, every redirect checked, at most FILE_MAX_BYTES), judged like an upload and stored as their
 * file. Anything that fails refuses the create with `invalid params: options.<name>: …` before a credit is reserved.
 * The network work happens here, before the creation transaction, which then pins the files (pinInputs).
 */
import { and, eq, inArray } from "drizzle-orm";
import { type Db, run, type Steps, type Tx } from "#db/client";
import { files } from "#db/schema";
import { IMAGE_OPTION_NAMES, type Offering } from "~/domain/catalog";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import { fileUploadBucket, fileUploadPolicy } from "~/domain/rate-limits/policy.server";
import type { Config } from "~/lib/config.server";
import { AppError, isAppError } from "~/lib/errors";
import { log } from "~/lib/log.server";
import { BodyTooLarge, OutboundRefused, readCapped, safeFetch } from "~/lib/outbound.server";
import { type GenerationRequest, type ImageInputName, ProviderError } from "~/providers/types";
import type { FileStore } from "~/storage/files.server";
import { type FileDeps, type FileRow, getOwnFile, type StoredFile, storeFile } from "./files.server";
import { SIGNED_LINK_SECONDS, signedFileUrl } from "./links.server";

export const FILE_ID = /^file_[A-Za-z0-9_-]{1,64}$/;
/** How long fetching one input URL may take. */
export const INPUT_FETCH_MS = 20_000;

export interface InputDeps extends FileDeps {
  config: FileDeps["config"] & Pick<Config, "OUTBOUND_ALLOW_PRIVATE" | "FILE_UPLOAD_LIMIT">;
}

export interface ResolvedInputs {
  /** Option name → file id, what the task records (null when the task has no image input). */
  inputs: Record<string, string> | null;
  /** Files newly stored from URLs for this request: removed again when the create is refused. */
  fetched: FileRow[];
}

const refuse = (name: string, why: string) => new AppError("INVALID_OPTIONS", { reason: `options.${name}: ${why}` });

export async function resolveInputs(
  deps: InputDeps,
  userId: string,
  offering: Pick<Offering, "options">,
  options: Record<string, unknown>,
): Promise<ResolvedInputs> {
  const names = Object.keys(options).filter((k) => offering.options[k]?.type === "image");
  if (names.length === 0) return { inputs: null, fetched: [] };
  const inputs: Record<string, string> = {};
  const fetched: FileRow[] = [];
  try {
    for (const name of names) {
      const value = String(options[name]);
      if (FILE_ID.test(value)) {
        try {
          inputs[name] = (await getOwnFile(deps.db, userId, value)).id;
        } catch (error) {
          throw isAppError(error) && error.code === "FILE_NOT_FOUND" ? refuse(name, "file not found") : error;
        }
      } else {
        const row = await fetchInput(deps, userId, name, value);
        // A picture the user already had is theirs to keep whatever becomes of this create.
        if (!row.reused) fetched.push(row);
        inputs[name] = row.id;
      }
    }
  } catch (error) {
    await discardFetched(deps, fetched);
    throw error;
  }
  return { inputs, fetched };
}

/** Fetches an input URL and stores it as the user's file, or refuses with a reason the client can act on. */
async function fetchInput(deps: InputDeps, userId: string, name: string, url: string): Promise<StoredFile> {
  const { config } = deps;
  await takeOrRefuse(deps.db, fileUploadBucket(userId), fileUploadPolicy(config), deps.clock.now());
  let bytes: Uint8Array;
  try {
    const res = await safeFetch(url, {
      allowPrivate: config.OUTBOUND_ALLOW_PRIVATE,
      httpsOnly: true,
      signal: AbortSignal.timeout(INPUT_FETCH_MS),
      headers: { accept: "image/png, image/jpeg, image/webp" },
    });
    if (res.status < 200 || res.status > 299) {
      await res.body?.cancel().catch(() => {});
      throw refuse(name, `the URL answered HTTP ${res.status}`);
    }
    bytes = await readCapped(res, config.FILE_MAX_BYTES);
  } catch (error) {
    if (isAppError(error)) throw error;
    if (error instanceof OutboundRefused) throw refuse(name, `the URL cannot be fetched: ${error.publicMessage}`);
    if (error instanceof BodyTooLarge) throw refuse(name, `the image is larger than ${config.FILE_MAX_BYTES} bytes`);
    throw refuse(name, "the URL cannot be fetched");
  }
  try {
    return await storeFile(deps, { userId, bytes, source: "url" });
  } catch (error) {
    if (isAppError(error) && (error.code === "FILE_REFUSED" || error.code === "FILE_TOO_LARGE"))
      throw refuse(name, error.message.replace(/^invalid file: /, "the URL's content: "));
    if (isAppError(error) && error.code === "FILE_QUOTA") throw refuse(name, error.message);
    throw error;
  }
}

/** Removes files fetched for a create that was then refused (nothing of a refused create is kept). */
export async function discardFetched(deps: Pick<FileDeps, "db" | "store">, fetched: FileRow[]): Promise<void> {
  if (fetched.length === 0) return;
  await deps.db.run(
    deps.db.delete(files).where(
      inArray(
        files.id,
        fetched.map((f) => f.id),
      ),
    ),
  );
  for (const f of fetched)
    await deps.store.delete(f.storageKey).catch((error) => log.warn("removing a refused input failed", { error }));
}

/**
 * Inside the creation transaction: the task's files stop expiring (they now live as long as the task). A file that
 * is gone by now (deleted, swept) refuses the create. Files already pinned by another task stay pinned.
 */
export function* pinInputs(tx: Tx, userId: string, inputs: Record<string, string> | null): Steps<void> {
  if (!inputs) return;
  const ids = [...new Set(Object.values(inputs))];
  const present = yield* run(
    tx
      .update(files)
      .set({ expiresAt: null })
      .where(and(eq(files.userId, userId), inArray(files.id, ids))),
  );
  if (present !== ids.length) {
    const name = Object.keys(inputs)[0]!;
    throw refuse(name, "file not found");
  }
}

/** The task's inputs as stored on its row. */
export function parseInputs(stored: string | null): Record<string, string> {
  if (!stored) return {};
  try {
    const v = JSON.parse(stored);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/**
 * The task's inputs as a provider takes them (GenerationRequest.inputs): a URL it can fetch — a presigned S3 URL, or
 * a signed link on PUBLIC_URL valid for an hour — and the bytes on demand. A file gone since the task was created
 * (its owner deleted it) fails the task as the request's fault, before anything is sent upstream.
 */
export async function loadInputs(
  deps: { db: Db; store: FileStore; secret: string; now: number },
  row: { userId: string; inputs: string | null },
): Promise<GenerationRequest["inputs"]> {
  const wanted = parseInputs(row.inputs);
  const ids = [...new Set(Object.values(wanted))];
  if (ids.length === 0) return undefined;
  const found = await deps.db.many(
    deps.db
      .select()
      .from(files)
      .where(and(eq(files.userId, row.userId), inArray(files.id, ids))),
  );
  const byId = new Map(found.map((f) => [f.id, f]));
  const out: NonNullable<GenerationRequest["inputs"]> = {};
  for (const [name, id] of Object.entries(wanted)) {
    const f = byId.get(id);
    if (!f)
      throw new ProviderError("bad_request", `the input ${name} was deleted before the task ran`, { retryable: false });
    if (!(IMAGE_OPTION_NAMES as readonly string[]).includes(name)) continue;
    out[name as ImageInputName] = {
      url: deps.store.presignedUrl(f.storageKey, SIGNED_LINK_SECONDS) ?? signedFileUrl(deps.secret, f.id, deps.now),
      contentType: f.contentType,
      width: f.width,
      height: f.height,
      bytes: async () => {
        const bytes = await deps.store.get(f.storageKey);
        if (!bytes)
          throw new ProviderError("bad_request", `the input ${name} is no longer stored`, { retryable: false });
        return bytes;
      },
    };
  }
  return out;
}
