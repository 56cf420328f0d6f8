/**
 * Reading the reports of `bun test` (JUnit XML) and Playwright (JSON) for scripts/test.ts: the counts of its summary
 * table and the names of what failed, printed last because the tail of a CI log is often all that is kept.
 */
import { existsSync, readFileSync } from "node:fs";

const oneLine = (text: string) =>
  text
    .replace(/\x1b\[[0-9;]*m/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 300);
const unescapeXml = (text: string) =>
  text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, "&");

/** The failing test cases of a JUnit report: the tail of a CI log is often all that is kept, so it names them. */
export function junitFailures(file: string): string[] {
  if (!existsSync(file)) return [];
  const xml = readFileSync(file, "utf8");
  const out: string[] = [];
  // A passing case is self-closing (`<testcase … />`); only a case with a body can hold a failure.
  for (const m of xml.matchAll(/<testcase\b((?:[^>/]|\/(?!>))*)>([\s\S]*?)<\/testcase>/g)) {
    const failure = /<(failure|error)\b([^>]*)\/?>([\s\S]*?)(?:<\/\1>|$)/.exec(m[2] ?? "");
    if (!failure) continue;
    const attr = (name: string, text: string) => unescapeXml(new RegExp(`\\b${name}="([^"]*)"`).exec(text)?.[1] ?? "");
    const where = [attr("file", m[1] ?? "") || attr("classname", m[1] ?? ""), attr("name", m[1] ?? "")].filter(Boolean);
    const why = attr("message", failure[2] ?? "") || unescapeXml(failure[3] ?? "");
    out.push(`${where.join(" › ")}: ${oneLine(why)}`);
  }
  return out;
}

export interface PlaywrightSuite {
  title: string;
  file?: string;
  specs?: {
    title: string;
    tests: { status?: string; results: { status: string; error?: { message?: string } }[] }[];
  }[];
  suites?: PlaywrightSuite[];
}

/**
 * Playwright's JSON report: the tests that failed every attempt ("unexpected") and those that failed and then passed
 * on the retry ("flaky"), each with its file and the first line of its first error.
 */
export function playwrightOutcomes(suites: PlaywrightSuite[] = [], file = ""): { failed: string[]; flaky: string[] } {
  const failed: string[] = [];
  const flaky: string[] = [];
  for (const suite of suites) {
    const where = suite.file ?? file;
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests) {
        const bad = t.results.find(
          (r) => r.status === "failed" || r.status === "timedOut" || r.status === "interrupted",
        );
        if (!bad) continue;
        const line = `${where} › ${spec.title}: ${oneLine(bad.error?.message ?? bad.status)}`;
        (t.status === "flaky" ? flaky : failed).push(line);
      }
    }
    const inner = playwrightOutcomes(suite.suites, where);
    failed.push(...inner.failed);
    flaky.push(...inner.flaky);
  }
  return { failed, flaky };
}

/** Passed, failed and skipped from the report's <testsuites> totals (errors count as failures). */
export function junitCounts(file: string) {
  if (!existsSync(file)) return { passed: 0, failed: 0, skipped: 0 };
  const xml = readFileSync(file, "utf8");
  const m = /<testsuites[^>]*\btests="(\d+)"[^>]*\bfailures="(\d+)"(?:[^>]*\bskipped="(\d+)")?/.exec(xml);
  const errors = Number(/<testsuites[^>]*\berrors="(\d+)"/.exec(xml)?.[1] ?? 0);
  if (!m) return { passed: 0, failed: 0, skipped: 0 };
  const tests = Number(m[1]);
  const failures = Number(m[2]) + errors;
  const skipped = Number(m[3] ?? 0);
  return { passed: tests - failures - skipped, failed: failures, skipped };
}
