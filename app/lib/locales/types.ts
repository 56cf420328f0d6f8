/** i18next's plural suffixes: each language has the forms its plural rules need (Intl.PluralRules), no more. */
type PluralSuffix = "zero" | "one" | "two" | "few" | "many" | "other";
type PluralKey = `${string}_${PluralSuffix}`;

/**
 * A language's messages for one namespace: English's keys, every value a string (docs/languages.md). Plural forms
 * differ by language, so they are checked by tests/unit/i18n-parity.test.ts rather than here.
 */
export type Messages<T> = {
  [K in keyof T as K extends PluralKey ? never : K]: T[K] extends string ? string : Messages<T[K]>;
} & { [key: PluralKey]: string };
