/**
 * The fields OpenAI's answer carries besides `data` for its gpt-image models (docs/openai-compat.md "Answers"):
 * `size`, `quality`, `background`, `output_format` and `usage`. Atelier bills credits, not tokens: `usage` is what
 * OpenAI's published table counts for the same request (output tokens per image by size and quality; text tokens
 * estimated at four characters a token; image tokens of an edit's picture at OpenAI's low-fidelity figure), so
 * clients that read it (the AI SDK's `usage`) get numbers of the right size. Pure.
 */
import type { ImagesEcho } from "./images";

/** OpenAI's output tokens per gpt-image-1 image, by size and quality (its pricing page). */
const OUTPUT_TOKENS: Record<string, Record<"low" | "medium" | "high", number>> = {
  "1024x1024": { low: 272, medium: 1056, high: 4160 },
  "1024x1536": { low: 408, medium: 1584, high: 6240 },
  "1536x1024": { low: 400, medium: 1568, high: 6208 },
};
/** An input picture at low input fidelity (OpenAI's figure for a 512-tile image). */
const IMAGE_INPUT_TOKENS = 323;

/** OpenAI answers `auto` with what it chose; Atelier's choice for the answer and the estimate. */
const reportedQuality = (quality: string): "low" | "medium" | "high" =>
  quality === "low" || quality === "high" ? quality : "medium";
const reportedSize = (size: string) => (size in OUTPUT_TOKENS ? size : "1024x1024");
const reportedBackground = (background: string) => (background === "transparent" ? "transparent" : "opaque");

export interface ImagesUsage {
  input_tokens: number;
  input_tokens_details: { image_tokens: number; text_tokens: number };
  output_tokens: number;
  total_tokens: number;
}

export function imagesUsage(echo: ImagesEcho, images: number, inputPictures: number): ImagesUsage {
  const quality = reportedQuality(echo.quality);
  const perImage = OUTPUT_TOKENS[reportedSize(echo.size)]![quality];
  const text = Math.ceil(echo.prompt.length / 4);
  const image = inputPictures * IMAGE_INPUT_TOKENS;
  const output = perImage * images;
  return {
    input_tokens: text + image,
    input_tokens_details: { image_tokens: image, text_tokens: text },
    output_tokens: output,
    total_tokens: text + image + output,
  };
}

/** The answer's fields beside `created` and `data`: the gpt-image ones, none for other models (as OpenAI). */
export function answerFields(echo: ImagesEcho, images: number, inputPictures: number): Record<string, unknown> {
  if (!echo.gptImage) return {};
  return {
    background: reportedBackground(echo.background),
    output_format: echo.outputFormat,
    quality: reportedQuality(echo.quality),
    size: reportedSize(echo.size),
    usage: imagesUsage(echo, images, inputPictures),
  };
}
