/**
 * Which pictures a model takes, as the catalog declares them (options of type `image`, docs/catalog.md "Image
 * inputs"), and which model an Edit or an Animate switches to. Shared by the composer, the model picker and the
 * result actions; nothing here reaches the server.
 */
import type { OptionSpec } from "~/domain/catalog";

/** The pictures the composer takes itself (a thumbnail chip each); a mask stays a field under Options. */
export const PICKER_SLOTS = ["image", "image_end"] as const;
export type PickerSlot = (typeof PICKER_SLOTS)[number];

/** What an upload may be: the types the server judges from the bytes (docs/api.md "Files"). */
export const INPUT_ACCEPT = "image/png,image/jpeg,image/webp";

/** A picture in the composer: what is sent (`ref`: a file id or an https URL) and what is shown (`preview`). */
export interface InputValue {
  ref: string;
  preview: string;
}

type WithOptions = { options: Readonly<Record<string, OptionSpec>> };

const isImage = (spec: OptionSpec | undefined) => spec?.type === "image";

/** The picture slots this model takes, in picker order. */
export const slotsOf = (o: WithOptions | undefined): PickerSlot[] =>
  o ? PICKER_SLOTS.filter((s) => Object.hasOwn(o.options, s) && isImage(o.options[s])) : [];

/** The model takes a starting picture (`image`). */
export const takesImage = (o: WithOptions | undefined) => slotsOf(o).includes("image");

/** The model refuses a task without a picture (Runway's gen4_turbo, for one). */
export const needsImage = (o: WithOptions | undefined) => Boolean(o?.options.image?.required && takesImage(o));

/** How a slot reads in the composer. */
export const slotLabel = (slot: PickerSlot, aiType: string) =>
  slot === "image_end" ? "Last frame" : aiType === "video" ? "First frame" : "Image";

/**
 * The model an Edit (image models) or an Animate (video models) switches to: the current one when it already
 * takes a picture of that kind, else the first affordable model that does, else the first that does.
 */
export function inputTarget<T extends WithOptions & { value: string; aiType: string; affordable: boolean }>(
  offerings: readonly T[],
  kind: "edit" | "animate",
  current?: string,
): T | undefined {
  const type = kind === "edit" ? "image" : "video";
  const fits = offerings.filter((o) => o.aiType === type && takesImage(o));
  return fits.find((o) => o.value === current) ?? fits.find((o) => o.affordable) ?? fits[0];
}
