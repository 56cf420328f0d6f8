/** Every language has every key English has, no key English lacks, its own plural forms and the same placeholders. */
import { describe, expect, test } from "bun:test";
import { LANGUAGE_CODES } from "~/lib/languages";
import { compareMessages } from "~/lib/locales/parity";
import { RESOURCES } from "~/lib/locales/resources.server";

const en = RESOURCES.en;

describe("every language matches English", () => {
  for (const lng of LANGUAGE_CODES.filter((l) => l !== "en")) {
    test(lng, () => {
      expect(Object.keys(RESOURCES[lng]).sort()).toEqual(Object.keys(en).sort());
      expect(compareMessages(en, RESOURCES[lng], lng)).toEqual([]);
    });
  }
  test("English itself has one and other for each plural", () => {
    expect(compareMessages(en, en, "en")).toEqual([]);
  });
});

describe("the check finds what is wrong", () => {
  const english = {
    title: "Hello {{name}}",
    nested: { a: "A", b: "B" },
    files_one: "{{count}} file",
    files_other: "{{count}} files",
  };
  test("a missing key, an extra key", () => {
    const problems = compareMessages(
      english,
      {
        title: "Hallo {{name}}",
        nested: { a: "A", c: "C" },
        files_one: "{{count}} Datei",
        files_other: "{{count}} Dateien",
      },
      "de",
    );
    expect(problems).toEqual([
      { kind: "extra", key: "nested.c" },
      { kind: "missing", key: "nested.b" },
    ]);
  });
  test("a placeholder renamed or dropped", () => {
    const problems = compareMessages(
      english,
      { title: "Hallo {{nom}}", nested: { a: "A", b: "B" }, files_one: "eine Datei", files_other: "Dateien" },
      "de",
    );
    expect(problems.map((p) => `${p.kind} ${p.key}`)).toEqual(["placeholders title", "placeholders files_other"]);
  });
  test("plural forms follow the language's rules", () => {
    const jaOk = { title: "{{name}}", nested: { a: "A", b: "B" }, files_other: "{{count}} 件" };
    expect(compareMessages(english, jaOk, "ja")).toEqual([]);
    expect(compareMessages(english, { ...jaOk, files_one: "1 件" }, "ja")[0]).toMatchObject({ kind: "plural-forms" });
    const frMissingMany = { ...jaOk, files_one: "{{count}} fichier", files_other: "{{count}} fichiers" };
    expect(compareMessages(english, frMissingMany, "fr")[0]).toMatchObject({ kind: "plural-forms", key: "files" });
    const frOk = { ...frMissingMany, files_many: "{{count}} de fichiers" };
    expect(compareMessages(english, frOk, "fr")).toEqual([]);
    const { files_other: _, ...noPlural } = jaOk;
    expect(compareMessages(english, noPlural, "ja")).toEqual([{ kind: "missing", key: "files_other" }]);
  });
  test("a value that is not text", () => {
    const problems = compareMessages(english, { ...english, title: 3 as unknown as string }, "de");
    expect(problems).toEqual([{ kind: "not-text", key: "title" }]);
  });
});
