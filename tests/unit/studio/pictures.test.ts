/** Which models take a picture, which need one, and where Edit and Animate go. */
import { describe, expect, test } from "bun:test";
import { inputTarget, needsImage, slotsOf, takesImage } from "~/components/studio/inputs";
import type { OptionSpec } from "~/domain/catalog";

const image: OptionSpec = { type: "image", label: "Image" };
const model = (value: string, options: Record<string, OptionSpec>, affordable = true) => ({
  value,
  aiType: value.split("|")[0]!,
  affordable,
  options,
});
const OFFERINGS = [
  model("image|replicate|flux", { seed: { type: "integer", min: 0, max: 9, label: "Seed" } }),
  model("image|openai|gpt-image-1", { image, mask: { ...image, label: "Mask" } }, false),
  model("image|replicate|kontext", { image }),
  model("video|runway|gen4.5", {}),
  model("video|runway|gen4_turbo", { image: { ...image, required: true } }),
  model("video|kling|kling-v1", { image, image_end: { ...image, label: "Last frame" } }),
];

describe("pictures a model takes", () => {
  test("slots in picker order; a mask is not a chip; required only where declared", () => {
    expect(slotsOf(OFFERINGS[5])).toEqual(["image", "image_end"]);
    expect(slotsOf(OFFERINGS[1])).toEqual(["image"]);
    expect(slotsOf(OFFERINGS[0])).toEqual([]);
    expect(takesImage(OFFERINGS[0])).toBe(false);
    expect(needsImage(OFFERINGS[4])).toBe(true);
    expect(needsImage(OFFERINGS[5])).toBe(false);
    // A text option that happens to be called "image" is not a picture.
    expect(takesImage(model("image|x|y", { image: { type: "text", maxLength: 9, label: "Image" } }))).toBe(false);
  });

  test("Edit keeps a model that takes a picture, else the first affordable one; Animate picks a video model", () => {
    expect(inputTarget(OFFERINGS, "edit", "image|openai|gpt-image-1")?.value).toBe("image|openai|gpt-image-1");
    // gpt-image-1 is not affordable here: kontext is the first that is.
    expect(inputTarget(OFFERINGS, "edit", "image|replicate|flux")?.value).toBe("image|replicate|kontext");
    expect(inputTarget(OFFERINGS, "animate")?.value).toBe("video|runway|gen4_turbo");
    expect(inputTarget(OFFERINGS.slice(0, 1), "edit")).toBeUndefined();
  });
});
