/**
 * The studio's pictures to start from (docs/studio.md "Pictures to start from"): the action's `upload` and
 * `use-result` intents and the pictures a create posts. Each parses the form, calls the files domain (storeFile:
 * the bytes judged like every upload) or resultAsInput, and shapes the page's answer; nothing here decides what a
 * file may be.
 */
import { redirect } from "react-router";
import { draftHref } from "~/components/studio/draft";
import { PICKER_SLOTS, type PickerSlot, slotsOf, takesImage } from "~/components/studio/inputs";
import type { Draft } from "~/components/studio/types";
import { findOffering, IMAGE_OPTION_NAMES, type Offering, offeringKey } from "~/domain/catalog";
import { storeFile } from "~/domain/files/files.server";
import { fileUrl, inputsView } from "~/domain/files/links.server";
import { resultAsInput } from "~/domain/generations/result-as-input.server";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import { fileUploadBucket, fileUploadPolicy } from "~/domain/rate-limits/policy.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import { getServices } from "~/http/services.server";
import { AppError, isAppError } from "~/lib/errors";

type Form = Record<string, FormDataEntryValue>;

const isUpload = (v: FormDataEntryValue | undefined): v is File => typeof v === "object" && v !== null && v.size > 0;
const slotOf = (v: FormDataEntryValue | undefined): PickerSlot => PICKER_SLOTS.find((s) => s === v) ?? PICKER_SLOTS[0];

function fileDeps() {
  const { db, clock, config } = getServices();
  return { db, clock, config, store: getGenerationRuntime().files };
}

/** An upload from the studio counts against the same per-user limit as POST /api/files (docs/api.md "Files"). */
async function storeUpload(userId: string, upload: File) {
  const deps = fileDeps();
  await takeOrRefuse(deps.db, fileUploadBucket(userId), fileUploadPolicy(deps.config), deps.clock.now());
  if (upload.size > deps.config.FILE_MAX_BYTES)
    throw new AppError("FILE_TOO_LARGE", { max: deps.config.FILE_MAX_BYTES });
  return storeFile(deps, { userId, bytes: new Uint8Array(await upload.arrayBuffer()), source: "upload" });
}

/**
 * A link to each picture of a task: what its stored `inputs` record (the files the creation pinned, whatever the
 * options named: a fetched https URL became a file too), never the options, which a client wrote.
 */
export const taskPreviews = (row: { inputs?: string | null }): Record<string, string> => inputsView(row.inputs) ?? {};

/** A link to each picture among a draft's options (not yet a task): its file's (owner only), or the https URL itself. */
export function previewsOf(options: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of IMAGE_OPTION_NAMES) {
    const v = typeof options[s] === "string" ? (options[s] as string) : undefined;
    if (v?.startsWith("file_")) out[s] = fileUrl(v);
    else if (v?.startsWith("https://")) out[s] = v;
  }
  return out;
}

/** `upload` (a picture picked, dropped or pasted) and `use-result` (Edit, Animate). */
export async function pictureAction(userId: string, form: Form) {
  if (form.intent === "upload") {
    const slot = slotOf(form.slot);
    const file = form.file;
    if (!isUpload(file)) return { intent: "upload" as const, slot, error: "Choose a PNG, JPEG or WebP picture." };
    try {
      const row = await storeUpload(userId, file);
      return { intent: "upload" as const, slot, file: { file_id: row.id, url: fileUrl(row.id) } };
    } catch (error) {
      if (isAppError(error)) return { intent: "upload" as const, slot, error: error.message };
      throw error;
    }
  }
  const [aiType = "", provider = "", model = ""] = String(form.to ?? "").split("|");
  const to = findOffering(aiType, provider, model);
  // With JavaScript an answer for the page; without, back to the studio (with the draft, or a notice).
  const fail = (message: string) =>
    form.via === "fetch"
      ? { intent: "use-result" as const, error: message }
      : redirect("/studio?notice=picture-unavailable");
  if (!to || !takesImage(to)) return fail("Choose a model that takes a picture.");
  let used: Awaited<ReturnType<typeof resultAsInput>>;
  try {
    const { db, config, clock } = getServices();
    await takeOrRefuse(db, fileUploadBucket(userId), fileUploadPolicy(config), clock.now());
    used = await resultAsInput(
      { ...fileDeps(), storage: getGenerationRuntime().storage },
      userId,
      String(form.gen_id ?? ""),
    );
  } catch (error) {
    if (isAppError(error)) return fail(error.message);
    throw error;
  }
  const draft: Draft = {
    offering: offeringKey(to),
    // An edit describes the change; an animation starts from what the picture shows.
    prompt: form.kind === "edit" ? "" : used.prompt,
    options: { image: used.file.id },
    previews: { image: fileUrl(used.file.id) },
  };
  return form.via === "fetch" ? { intent: "use-result" as const, draft } : redirect(draftHref(draft));
}

/**
 * The pictures a create brings: uploads posted with the form are stored (their file ids join the options);
 * pictures for a model that takes none are refused rather than dropped. Returns the errors to show, if any.
 */
export async function formPictures(
  userId: string,
  picked: Offering | undefined,
  form: Form,
  values: Draft,
): Promise<Record<string, string> | null> {
  const given = PICKER_SLOTS.filter((s) => isUpload(form[`input_${s}`]) || form[`opt_${s}`]);
  const refusing = picked && given.find((s) => !slotsOf(picked).includes(s));
  if (picked && refusing) {
    const what = refusing === "image_end" ? "a last frame" : "a picture";
    return { form: `${picked.label} does not take ${what}: choose a model that does, or remove it.` };
  }
  for (const s of given) {
    const upload = form[`input_${s}`];
    if (!isUpload(upload)) continue;
    try {
      const row = await storeUpload(userId, upload);
      values.options[s] = row.id;
    } catch (error) {
      if (isAppError(error)) return { [`input_${s}`]: error.message };
      throw error;
    }
  }
  values.previews = previewsOf(values.options);
  return null;
}

/** The options a create sends for the pictures (the file ids or URLs in the draft). */
export const pictureOptions = (options: Record<string, string>) =>
  Object.fromEntries(PICKER_SLOTS.filter((s) => options[s]).map((s) => [s, options[s]]));
