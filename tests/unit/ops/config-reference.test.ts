/**
 * The configuration reference and the code agree, both ways (docs/decisions/108-configuration-reference-pinned.md):
 * - every variable the configuration schema reads (app/lib/config.server.ts) has a row in the README's
 *   configuration table, with its default in that row's default cell and a meaning;
 * - every variable a configuration table names (README, docs/payments.md) is read by the code — the schema, or
 *   the S3 client's own variables, which app/storage/s3.server.ts reads;
 * - where docs/payments.md repeats a variable, its default cell says the same as the README's.
 * The defaults are taken from the schema on purpose: the test is about the two texts agreeing.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_VARIABLES, parseConfig } from "~/lib/config.server";

const ROOT = join(import.meta.dir, "../../..");
const read = (f: string) => readFileSync(join(ROOT, f), "utf8");

/** Read by Bun's S3 client through app/storage/s3.server.ts, not by the schema. */
const S3_CLIENT_VARIABLES = [
  "S3_ACCESS_KEY_ID",
  "S3_SECRET_ACCESS_KEY",
  "S3_ENDPOINT",
  "S3_REGION",
  "S3_SESSION_TOKEN",
];

interface Row {
  variables: string[];
  defaults: string;
  meaning: string;
  line: string;
}

/** The rows of the table(s) in `section` of a markdown file whose first cell names variables in backticks. */
function tableRows(markdown: string, section: RegExp): Row[] {
  const start = markdown.search(section);
  if (start < 0) throw new Error(`no section ${section}`);
  const rest = markdown.slice(start);
  const next = rest.slice(1).search(/\n## /);
  const body = next < 0 ? rest : rest.slice(0, next + 1);
  const rows: Row[] = [];
  for (const line of body.split("\n")) {
    if (!line.startsWith("| `")) continue;
    // Cells: split on | that is not escaped (\|) and not inside backticks.
    const cells: string[] = [];
    let cell = "";
    let code = false;
    for (let i = 1; i < line.length; i++) {
      const c = line[i]!;
      if (c === "`") code = !code;
      if (c === "|" && !code && line[i - 1] !== "\\") {
        cells.push(cell.trim());
        cell = "";
      } else cell += c;
    }
    const variables = [...cells[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!);
    if (variables.length) rows.push({ variables, defaults: cells[1] ?? "", meaning: cells[2] ?? "", line });
  }
  return rows;
}

const readme = tableRows(read("README.md"), /\n## Configuration\n/);
const payments = tableRows(read("docs/payments.md"), /\n## Connect a Stripe account\n/);
const rowOf = (rows: Row[], name: string) => rows.find((r) => r.variables.includes(name));

/** How a default is written in a default cell: the value itself (booleans also as on/off, an empty list as "empty"). */
function spellings(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (value === true) return ["true", "on"];
  if (value === false) return ["false", "off"];
  if (Array.isArray(value)) return value.length ? [value.join(",")] : ["empty"];
  if (value === "") return ["empty"];
  return [String(value)];
}

function cellStates(cell: string, spelled: string): boolean {
  if (spelled.includes(",")) return cell.replaceAll(" ", "").includes(spelled);
  return cell.split(/[\s,;`()→]+/).includes(spelled);
}

describe("configuration reference (README table) ⇄ app/lib/config.server.ts", () => {
  const defaults = parseConfig({}) as unknown as Record<string, unknown>;

  test("every variable the schema reads has a row with a meaning", () => {
    const missing = CONFIG_VARIABLES.filter((v) => !rowOf(readme, v));
    expect(missing).toEqual([]);
    const noMeaning = readme.filter((r) => r.meaning.length < 8).map((r) => r.variables.join(", "));
    expect(noMeaning).toEqual([]);
  });

  test("every variable with a default has that default written in its row", () => {
    const wrong: string[] = [];
    for (const v of CONFIG_VARIABLES) {
      const row = rowOf(readme, v);
      const spelled = spellings(defaults[v]);
      if (!row) continue;
      if (spelled === undefined) {
        if (!row.defaults) wrong.push(`${v}: empty default cell (say "unset → …")`);
      } else if (!spelled.some((s) => cellStates(row.defaults, s))) {
        wrong.push(`${v}: default ${spelled.join(" / ")} not in "${row.defaults}"`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test("every variable a configuration table names is read by the code", () => {
    const known = new Set<string>([...CONFIG_VARIABLES, ...S3_CLIENT_VARIABLES]);
    const unknown = [...readme, ...payments].flatMap((r) => r.variables).filter((v) => !known.has(v));
    expect(unknown).toEqual([]);
    const s3 = read("app/storage/s3.server.ts");
    expect(S3_CLIENT_VARIABLES.filter((v) => !s3.includes(`env.${v}`))).toEqual([]);
    for (const v of S3_CLIENT_VARIABLES) expect(rowOf(readme, v)).toBeDefined();
  });

  test("docs/payments.md's table says the same defaults as the README's", () => {
    expect(payments.length).toBeGreaterThan(3);
    const wrong: string[] = [];
    for (const row of payments) {
      for (const v of row.variables) {
        const spelled = spellings(defaults[v]);
        if (spelled && !spelled.some((s) => cellStates(row.defaults, s)))
          wrong.push(`${v}: default ${spelled.join(" / ")} not in "${row.defaults}"`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test("the parser reads the table (a guard against a test that passes on nothing)", () => {
    expect(readme.length).toBeGreaterThan(30);
    expect(rowOf(readme, "PORT")?.defaults).toContain("3000");
  });
});
