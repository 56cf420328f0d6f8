/**
 * Checks one language's messages against English's (tests/unit/i18n-parity.test.ts, scripts/i18n-missing.ts):
 * the same keys, plural forms by the language's own plural rules, and the same {{placeholders}}.
 */
type Tree = { [key: string]: string | Tree };

const PLURAL = /_(zero|one|two|few|many|other)$/;
const PLACEHOLDER = /\{\{\s*([^,}\s]+)[^}]*\}\}/g;

export interface Problem {
  kind: "missing" | "extra" | "placeholders" | "not-text" | "plural-forms";
  key: string;
  detail?: string;
}

function flatten(tree: Tree, prefix = "", out = new Map<string, unknown>()): Map<string, unknown> {
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === "object") flatten(value as Tree, path, out);
    else out.set(path, value);
  }
  return out;
}

export const placeholdersOf = (text: string) => [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]))].sort();
const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Groups `key_one`, `key_other` … under `key` when English has a `key_other`; everything else stands alone. */
function split(flat: Map<string, unknown>, pluralBases: Set<string>) {
  const single = new Map<string, unknown>();
  const plural = new Map<string, Map<string, unknown>>();
  for (const [key, value] of flat) {
    const base = key.replace(PLURAL, "");
    if (base !== key && pluralBases.has(base)) {
      if (!plural.has(base)) plural.set(base, new Map());
      plural.get(base)!.set(key.slice(base.length + 1), value);
    } else single.set(key, value);
  }
  return { single, plural };
}

export function compareMessages(english: object, other: object, lng: string): Problem[] {
  const problems: Problem[] = [];
  const en = flatten(english as Tree);
  const theirs = flatten(other as Tree);
  const bases = new Set([...en.keys()].filter((k) => k.endsWith("_other")).map((k) => k.replace(PLURAL, "")));
  const a = split(en, bases);
  const b = split(theirs, bases);
  for (const [key, value] of b.single) {
    if (!a.single.has(key)) problems.push({ kind: "extra", key });
    else if (typeof value !== "string") problems.push({ kind: "not-text", key });
  }
  for (const [key, value] of a.single) {
    const mine = b.single.get(key);
    if (mine === undefined) problems.push({ kind: "missing", key });
    else if (typeof mine === "string" && !same(placeholdersOf(String(value)), placeholdersOf(mine)))
      problems.push({
        kind: "placeholders",
        key,
        detail: `English has {{${placeholdersOf(String(value)).join("}}, {{")}}}; ${lng} has ${placeholdersOf(mine).join(", ") || "none"}`,
      });
  }
  const categories = new Intl.PluralRules(lng).resolvedOptions().pluralCategories as string[];
  for (const base of bases) {
    const forms = b.plural.get(base) ?? new Map<string, unknown>();
    const english = a.plural.get(base)!;
    const allowed = new Set([...english.values()].flatMap((v) => placeholdersOf(String(v))));
    const expectedOther = placeholdersOf(String(english.get("other")));
    const have = [...forms.keys()].sort();
    const want = [...categories].sort();
    if (forms.size === 0) problems.push({ kind: "missing", key: `${base}_other` });
    else if (!same(have, want))
      problems.push({
        kind: "plural-forms",
        key: base,
        detail: `${lng} needs _${want.join(", _")}; has _${have.join(", _")}`,
      });
    for (const [form, value] of forms) {
      if (typeof value !== "string") {
        problems.push({ kind: "not-text", key: `${base}_${form}` });
        continue;
      }
      const used = placeholdersOf(value);
      const bad = form === "other" ? !same(used, expectedOther) : used.some((p) => !allowed.has(p));
      if (bad) problems.push({ kind: "placeholders", key: `${base}_${form}`, detail: used.join(", ") || "none" });
    }
  }
  return problems;
}
