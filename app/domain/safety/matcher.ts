/**
 * The blocked-term matcher (docs/safety.md "Blocked terms"): a term matches a prompt as a whole word (or a run of
 * whole words), whatever the case and accents, through zero-width characters, Latin look-alikes from Cyrillic and
 * Greek, compatibility forms (full-width letters, ligatures: NFKC) and a word split across lines. Pure: no I/O.
 */

/**
 * Zero-width and invisible formatting characters (and the soft hyphen), dropped before matching. The invisible
 * combining ones (the grapheme joiner, variation selectors, Mongolian and Khmer ones) go with the accents, as marks.
 */
const INVISIBLE = /[\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0]/gu;

/** Cyrillic and Greek letters that look like Latin ones (lower case: the text is lower-cased first). */
const CONFUSABLES: Record<string, string> = {
  // Cyrillic
  а: "a",
  в: "b",
  с: "c",
  д: "d",
  е: "e",
  ё: "e",
  һ: "h",
  і: "i",
  ї: "i",
  ј: "j",
  к: "k",
  л: "l",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  ԛ: "q",
  г: "r",
  ѕ: "s",
  т: "t",
  у: "y",
  ѵ: "v",
  ԝ: "w",
  х: "x",
  ү: "y",
  з: "3",
  ь: "b",
  п: "n",
  // Greek
  α: "a",
  β: "b",
  γ: "y",
  δ: "d",
  ε: "e",
  ζ: "z",
  η: "n",
  ι: "i",
  κ: "k",
  μ: "u",
  ν: "v",
  ο: "o",
  ρ: "p",
  σ: "o",
  ς: "s",
  τ: "t",
  υ: "u",
  χ: "x",
  ω: "w",
  ϲ: "c",
  ϳ: "j",
};
const CONFUSABLE_RE = new RegExp(`[${Object.keys(CONFUSABLES).join("")}]`, "gu");

/** Case, compatibility forms, invisible characters, look-alikes and accents folded away. */
export function fold(text: string): string {
  return text
    .normalize("NFKC")
    .replace(INVISIBLE, "")
    .toLowerCase()
    .replace(CONFUSABLE_RE, (c) => CONFUSABLES[c] ?? c)
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .normalize("NFC");
}

/** Words only: every run of anything but letters and digits becomes one space. */
const words = (folded: string) => folded.replace(/[^\p{L}\p{N}]+/gu, " ").trim();

/** A blocked term's comparable form ("" for a term with no letters or digits, which is refused). */
export function normalizeTerm(term: string): string {
  return words(fold(term));
}

/**
 * The prompt's comparable forms: its words as written, and its words with every line break (and a hyphen before
 * one) taken out, so a word split over two lines reads as one.
 */
export function promptForms(prompt: string): string[] {
  const folded = fold(prompt);
  const joined = folded.replace(/-?[^\S\r\n]*(?:\r\n|\r|\n)+[^\S\r\n]*/g, "");
  const forms = [` ${words(folded)} `];
  if (joined !== folded) forms.push(` ${words(joined)} `);
  return forms;
}

/** The first blocked term (normalized) that occurs in the prompt as whole words, or null. */
export function findBlockedTerm(prompt: string, normalizedTerms: Iterable<string>): string | null {
  const forms = promptForms(prompt);
  for (const term of normalizedTerms) {
    if (!term) continue;
    const needle = ` ${term} `;
    if (forms.some((f) => f.includes(needle))) return term;
  }
  return null;
}
