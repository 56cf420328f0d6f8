/**
 * scripts/test-reports.ts names what failed at the end of the CI log: read from a real `bun test` JUnit report of a
 * file with one passing and one failing test, and from a Playwright JSON report shaped as Playwright writes it.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { junitCounts, junitFailures, playwrightOutcomes } from "../../../scripts/test-reports";

const dir = mkdtempSync(join(tmpdir(), "atelier-reports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a failing bun test is counted and named with its message", async () => {
  writeFileSync(
    join(dir, "sample.test.ts"),
    `import { expect, test } from "bun:test";
test("adds", () => expect(1 + 1).toBe(2));
test("compares <tags> & quotes", () => expect("a").toBe("b"));
`,
  );
  const out = join(dir, "junit.xml");
  const proc = Bun.spawn(["bun", "test", "./sample.test.ts", "--reporter=junit", `--reporter-outfile=${out}`], {
    cwd: dir,
    stdout: "ignore",
    stderr: "ignore",
  });
  expect(await proc.exited).not.toBe(0);
  expect(junitCounts(out)).toEqual({ passed: 1, failed: 1, skipped: 0 });
  const failures = junitFailures(out);
  expect(failures).toHaveLength(1);
  expect(failures[0]).toContain("compares <tags> & quotes");
  expect(failures[0]).not.toContain("adds");
});

test("a missing report names nothing", () => {
  expect(junitFailures(join(dir, "absent.xml"))).toEqual([]);
  expect(junitCounts(join(dir, "absent.xml"))).toEqual({ passed: 0, failed: 0, skipped: 0 });
});

test("Playwright's report: a test that failed every attempt is failed, one that passed on its retry is flaky", () => {
  const outcomes = playwrightOutcomes([
    {
      title: "keys.e2e.ts",
      file: "keys.e2e.ts",
      specs: [
        { title: "creates a key", tests: [{ status: "expected", results: [{ status: "passed" }] }] },
        {
          title: "webhooks beside the keys",
          tests: [
            {
              status: "unexpected",
              results: [
                {
                  status: "failed",
                  error: { message: "\u001b[31mError:\u001b[39m expect(locator)\n  toBeVisible() failed" },
                },
                { status: "failed", error: { message: "second attempt" } },
              ],
            },
          ],
        },
        {
          title: "rotates",
          tests: [{ status: "flaky", results: [{ status: "timedOut" }, { status: "passed" }] }],
        },
      ],
      suites: [
        {
          title: "nested",
          specs: [{ title: "slow one", tests: [{ status: "unexpected", results: [{ status: "timedOut" }] }] }],
        },
      ],
    },
  ]);
  expect(outcomes).toEqual({
    failed: [
      "keys.e2e.ts › webhooks beside the keys: Error: expect(locator) toBeVisible() failed",
      "keys.e2e.ts › slow one: timedOut",
    ],
    flaky: ["keys.e2e.ts › rotates: timedOut"],
  });
});
