/**
 * Lists what each language lacks or has too many of, against English (docs/languages.md):
 *   bun scripts/i18n-missing.ts          every language
 *   bun scripts/i18n-missing.ts ja de    only these
 * Exits 1 when anything is listed.
 */
import { isLanguage, LANGUAGE_CODES } from "~/lib/languages";
import { compareMessages } from "~/lib/locales/parity";
import { RESOURCES } from "~/lib/locales/resources.server";

const asked = process.argv.slice(2);
const unknown = asked.filter((a) => !isLanguage(a));
if (unknown.length) {
  console.error(`unknown language: ${unknown.join(", ")} (known: ${LANGUAGE_CODES.join(", ")})`);
  process.exit(2);
}
let found = 0;
for (const lng of asked.length ? asked : LANGUAGE_CODES.filter((l) => l !== "en")) {
  const problems = isLanguage(lng) ? compareMessages(RESOURCES.en, RESOURCES[lng], lng) : [];
  for (const p of problems) console.log(`${lng}\t${p.kind}\t${p.key}${p.detail ? `\t${p.detail}` : ""}`);
  found += problems.length;
}
if (found === 0) console.log("every language has every key English has, and no others");
process.exit(found ? 1 : 0);
