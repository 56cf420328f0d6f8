/**
 * The layer rule (scripts/check-layers.ts, docs/design.md §1.1): this checkout keeps it, and the check fails on a
 * climbing import and on a loop planted on purpose — in a copy of the graph and in a scratch tree on disk.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkGraph, importGraph, layerOf, resolveImport, specifiers } from "../../../scripts/check-layers";

const root = join(import.meta.dir, "../../..");

describe("the layer rule", () => {
  test("this checkout: no import climbs, no two files import each other", () => {
    const graph = importGraph(root);
    expect(graph.size).toBeGreaterThan(300);
    expect(checkGraph(graph).map((v) => v.text)).toEqual([]);
  });

  test("a planted climbing import from app/lib into the domain is named", () => {
    const graph = importGraph(root);
    graph.get("app/lib/errors.ts")!.push("app/domain/catalog.ts");
    expect(checkGraph(graph).map((v) => v.text)).toEqual([
      "app/lib/errors.ts (lib) imports app/domain/catalog.ts (domain)",
    ]);
  });

  test("each layer may import its own and those below, never one above", () => {
    const order = [
      "db/schema.ts",
      "app/lib/errors.ts",
      "app/providers/types.ts",
      "app/domain/catalog.ts",
      "app/http/api.server.ts",
      "app/components/media.tsx",
      "app/routes/studio.tsx",
    ];
    for (let i = 0; i < order.length; i++)
      for (let j = 0; j < order.length; j++) {
        const g = new Map([[order[i]!, [order[j]!]]]);
        expect({ from: order[i], to: order[j], climbs: checkGraph(g).length > 0 }).toEqual({
          from: order[i],
          to: order[j],
          climbs: j > i,
        });
      }
    expect(layerOf("app/storage/s3.server.ts")).toBe("adapters");
    expect(layerOf("jobs/index.ts")).toBe("entry");
    expect(layerOf("tests/unit/x.test.ts")).toBeUndefined();
  });

  test("a loop through three files is one finding naming all three; a chain is none", () => {
    const loop = new Map([
      ["app/domain/a.ts", ["app/domain/b.ts"]],
      ["app/domain/b.ts", ["app/domain/c.ts"]],
      ["app/domain/c.ts", ["app/domain/a.ts"]],
    ]);
    expect(checkGraph(loop).map((v) => v.text)).toEqual([
      "app/domain/a.ts → app/domain/b.ts → app/domain/c.ts → app/domain/a.ts",
    ]);
    loop.set("app/domain/c.ts", []);
    expect(checkGraph(loop)).toEqual([]);
  });

  test("every spelling of an import is read: static, type-only, re-export, side effect, dynamic", () => {
    const text = [
      'import { a } from "~/domain/x";',
      'import type { B } from "../lib/y";',
      'export { c } from "#db/z";',
      'import "./side";',
      'const m = await import("~/http/lazy.server");',
      'import {\n  d,\n  e,\n} from "~/storage/multi";',
    ].join("\n");
    expect(specifiers(text).sort()).toEqual(
      ["#db/z", "../lib/y", "./side", "~/domain/x", "~/http/lazy.server", "~/storage/multi"].sort(),
    );
    const exists = (p: string) => ["app/domain/x.ts", "app/lib/y.ts", "app/http/index.ts"].includes(p);
    expect(resolveImport("app/components/k.tsx", "~/domain/x", exists)).toBe("app/domain/x.ts");
    expect(resolveImport("app/domain/k.ts", "../lib/y", exists)).toBe("app/lib/y.ts");
    expect(resolveImport("app/domain/k.ts", "~/http", exists)).toBe("app/http/index.ts");
    expect(resolveImport("app/domain/k.ts", "react", exists)).toBeUndefined();
  });

  test("the command exits 1 on a scratch tree with a climbing import, 0 once it is removed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "layers-"));
    const put = (p: string, text: string) => {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), text);
    };
    try {
      put("app/domain/rules.ts", "export const r = 1;\n");
      put("app/lib/util.ts", 'import { r } from "~/domain/rules";\nexport const u = r;\n');
      const run = () =>
        Bun.spawnSync(["bun", join(root, "scripts/check-layers.ts"), dir], { stderr: "pipe", stdout: "pipe" });
      const bad = run();
      expect(bad.exitCode).toBe(1);
      expect(bad.stderr.toString()).toContain("climbing import: app/lib/util.ts (lib) imports app/domain/rules.ts");
      put("app/lib/util.ts", "export const u = 1;\n");
      expect(run().exitCode).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
