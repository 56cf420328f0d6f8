/**
 * A local picture classifier (docs/safety.md "The local classifier"): judges a picture with no network and no key.
 * The safety step runs one when it is given one; none ships yet (nsfwjs is the candidate).
 */
export interface ClassifierVerdict {
  flagged: boolean;
  /** The class that decided (`porn`, `hentai`, `sexy`…; `neutral` when nothing was flagged). */
  category: string;
}

export interface PictureClassifier {
  classify(bytes: Uint8Array, signal?: AbortSignal): Promise<ClassifierVerdict>;
}
