/**
 * The languages the web app speaks (docs/languages.md). Adding one: a folder of message files in app/lib/locales/<code>/,
 * one line here and one in app/lib/locales/client.ts and app/lib/locales/resources.server.ts.
 * The JSON API never follows these: its messages are the spec's, in English.
 */
export const LANGUAGES = [
  { code: "en", name: "English", dir: "ltr" },
  { code: "zh-CN", name: "简体中文", dir: "ltr" },
  { code: "es", name: "Español", dir: "ltr" },
  { code: "ja", name: "日本語", dir: "ltr" },
  { code: "de", name: "Deutsch", dir: "ltr" },
  { code: "fr", name: "Français", dir: "ltr" },
  { code: "pt-BR", name: "Português (Brasil)", dir: "ltr" },
] as const satisfies ReadonlyArray<{ code: string; name: string; dir: "ltr" | "rtl" }>;

export type Language = (typeof LANGUAGES)[number]["code"];

export const DEFAULT_LANGUAGE: Language = "en";
export const LANGUAGE_CODES: Language[] = LANGUAGES.map((l) => l.code);
/** The cookie (and query parameter) that holds the visitor's choice. */
export const LANGUAGE_COOKIE = "lng";
/** One year: a choice is remembered until changed. */
export const LANGUAGE_COOKIE_MAX_AGE = 60 * 60 * 24 * 365;

export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (LANGUAGE_CODES as string[]).includes(value);
}

export function directionOf(lng: string): "ltr" | "rtl" {
  return LANGUAGES.find((l) => l.code === lng)?.dir ?? "ltr";
}
