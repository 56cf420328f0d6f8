/**
 * Compare (docs/studio.md "Compare"): one prompt on several models at once. The rules a selection must meet,
 * shared by the page (the total it shows before Generate) and the server (which decides).
 */
import { findOffering, type Offering, offeringKey } from "~/domain/catalog";
import { AppError } from "~/lib/errors";

export const COMPARE_MIN = 2;
export const COMPARE_MAX = 4;

/** What a model needs before it can be compared from a prompt alone (a picture it cannot start without). */
export const comparable = (o: Pick<Offering, "options">) => !o.options.image?.required;

/** The sum of the prices: what a comparison holds while it runs and costs when every result is delivered. */
export const compareTotal = (offerings: readonly { credits: number }[]) =>
  offerings.reduce((sum, o) => sum + o.credits, 0);

const refuse = (reason: string) => new AppError("INVALID_PARAMS", { reason });

/**
 * The models of a comparison, in the order chosen: two to four, each once, all of one kind, each known and able to
 * start from a prompt. Throws INVALID_PARAMS with a sentence saying which rule the selection breaks.
 */
export function planComparison(values: readonly string[], find = findOffering): Offering[] {
  if (values.length > COMPARE_MAX)
    throw refuse(`compare up to ${COMPARE_MAX} models at once (${values.length} chosen)`);
  if (values.length < COMPARE_MIN) throw refuse(`choose ${COMPARE_MIN} to ${COMPARE_MAX} models to compare`);
  const seen = new Set<string>();
  const out: Offering[] = [];
  for (const value of values) {
    const [aiType = "", provider = "", model = ""] = value.split("|");
    const offering = find(aiType, provider, model);
    if (!offering) throw refuse(`unknown model to compare: ${value.slice(0, 120)}`);
    if (seen.has(offeringKey(offering))) throw refuse(`${offering.label} is chosen twice: compare each model once`);
    seen.add(offeringKey(offering));
    if (!comparable(offering))
      throw refuse(`${offering.label} starts from a picture and cannot be compared on a prompt`);
    out.push(offering);
  }
  if (new Set(out.map((o) => o.aiType)).size > 1) throw refuse("compare images with images, or videos with videos");
  return out;
}
