/**
 * A request's image inputs as its model declares them (docs/catalog.md "Image inputs"): each picture the runtime
 * resolved into `req.inputs`, with the field its provider expects (`param`), and the other options without them.
 * Adapters send the pictures from here and never from `options`, where an image option holds only a file id or
 * the URL a client gave.
 */
import { IMAGE_OPTION_NAMES } from "./offering";
import { declaredOptions, type GenerationRequest, type ImageInputName, type InputImage, ProviderError } from "./types";

export interface DeclaredInput {
  name: ImageInputName;
  /** The upstream field (`input_image`, `image_tail`, `promptImage`…): the spec's `param`, else the name. */
  param: string;
  image: InputImage;
}

const imageSpecs = (req: GenerationRequest) =>
  Object.entries(req.specs).filter(
    ([name, spec]) => spec.type === "image" && (IMAGE_OPTION_NAMES as readonly string[]).includes(name),
  );

/**
 * The pictures of the request its model takes, in the catalog's order. A required input that is missing refuses
 * the task before anything is sent upstream (validation refuses it at creation; this guards older tasks), and so
 * does an image option whose picture was not resolved.
 */
export function declaredInputs(req: GenerationRequest): DeclaredInput[] {
  const out: DeclaredInput[] = [];
  const given = declaredOptions(req);
  for (const [name, spec] of imageSpecs(req)) {
    const image = req.inputs?.[name as ImageInputName];
    if (image) out.push({ name: name as ImageInputName, param: spec.param ?? name, image });
    else if (spec.required || given[name] !== undefined)
      // Sending the task without the picture it was given would make something else than what was asked.
      throw new ProviderError(
        "bad_request",
        given[name] === undefined ? `options.${name} is required` : `the ${name} input could not be read`,
        { retryable: false, operatorHint: `${req.provider}/${req.model}: no ${name} input resolved for ${req.genId}` },
      );
  }
  return out;
}

/** The request's declared options without its image options (their values are only references). */
export function plainOptions(req: GenerationRequest): Record<string, unknown> {
  const images = new Set(imageSpecs(req).map(([name]) => name));
  return Object.fromEntries(Object.entries(declaredOptions(req)).filter(([k]) => !images.has(k)));
}

/** Whether the task was created with an image option (a poll, which may not carry `inputs`, picks its route by it). */
export function hasImageOption(req: GenerationRequest): boolean {
  const o = declaredOptions(req);
  return imageSpecs(req).some(([name]) => o[name] !== undefined) || Object.keys(req.inputs ?? {}).length > 0;
}
