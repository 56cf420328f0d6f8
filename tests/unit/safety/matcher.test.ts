/**
 * The blocked-term matcher (app/domain/safety/matcher.ts): the evasion probes of issue #41 — case, accents,
 * zero-width characters, homoglyphs from Cyrillic and Greek, full-width forms, a word split over lines — each match;
 * a term inside another word does not.
 */
import { describe, expect, test } from "bun:test";
import { findBlockedTerm, fold, normalizeTerm } from "~/domain/safety/matcher";
import { isSafetySwitch, withoutSafetySwitches } from "~/providers/offering";

const TERMS = [normalizeTerm("Badword"), normalizeTerm("evil twin")];
const hit = (prompt: string) => findBlockedTerm(prompt, TERMS);

describe("a blocked term matches as a whole word", () => {
  test.each([
    ["plain", "a badword here"],
    ["upper case", "a BADWORD here"],
    ["at the start and the end", "badword"],
    ["beside punctuation", "(badword)!"],
    ["accents", "a bádwörd here"],
    ["zero-width space inside", "a bad\u200Bword here"],
    ["zero-width joiner and soft hyphen", "a ba\u200Ddw\u00ADord here"],
    ["BOM and word joiner", "a \uFEFFbad\u2060word"],
    ["Cyrillic а and о", "a b\u0430dw\u043Erd here"],
    ["Greek ο", "a badw\u03BFrd here"],
    ["full-width letters (NFKC)", "a ｂａｄｗｏｒｄ here"],
    ["combining accents (NFD input)", "a ba\u0301dword"],
    ["split over two lines", "a bad\nword here"],
    ["split with a hyphen at the line end", "a bad-\r\nword here"],
  ])("%s", (_, prompt) => {
    expect(hit(prompt)).toBe("badword");
  });

  test("a two-word term matches through any run of spaces, punctuation or line breaks", () => {
    expect(hit("the Evil   Twin")).toBe("evil twin");
    expect(hit("the evil-twin")).toBe("evil twin");
    expect(hit("the evil\n\ntwin")).toBe("evil twin");
  });

  test.each([
    ["inside a longer word", "badwords"],
    ["prefixed", "notbadword"],
    ["a substring across a space only", "bad word"],
    ["half of a two-word term", "evil twins"],
    ["the other half", "an evil"],
    ["an unrelated prompt", "a copper teapot on a windowsill"],
  ])("no match: %s", (_, prompt) => {
    expect(hit(prompt)).toBeNull();
  });

  test("a term's comparable form is folded like a prompt; a term with no letter or digit folds to nothing", () => {
    expect(normalizeTerm("  ÉVIL—Twin ")).toBe("evil twin");
    expect(normalizeTerm("!!! ---")).toBe("");
    expect(fold("Ｃａｆé")).toBe("cafe");
    expect(findBlockedTerm("anything at all", [""])).toBeNull();
  });
});

describe("provider safety switches", () => {
  test.each([
    "enable_safety_checker",
    "disable_safety_checker",
    "safety_tolerance",
    "safety_filter_level",
    "moderation",
    "person_generation",
    "enableSafetyChecker",
    "Safety-Tolerance",
    "nsfw_filter",
  ])("%s is one", (name) => {
    expect(isSafetySwitch(name)).toBe(true);
  });

  test.each(["seed", "guidance_scale", "image_size", "output_format", "prompt_upsampling"])("%s is not", (name) => {
    expect(isSafetySwitch(name)).toBe(false);
  });

  test("specs lose a switch by key or by its upstream name, and keep the rest", () => {
    const specs = {
      seed: { type: "integer", min: 0, max: 9, label: "Seed" },
      checker: { type: "boolean", default: true, label: "Checker", param: "enable_safety_checker" },
      safety_tolerance: { type: "integer", min: 0, max: 6, label: "Tolerance" },
    } as const;
    expect(Object.keys(withoutSafetySwitches(specs))).toEqual(["seed"]);
  });
});
