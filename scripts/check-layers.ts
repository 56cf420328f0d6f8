#!/usr/bin/env bun
/**
 * The layer rule (docs/design.md §1.1, docs/decisions/134-layers.md), checked over the import graph of app/, db/ and
 * jobs/: every import goes to the same layer or a lower one, and no files import each other, directly or through a
 * longer loop. `bun run lint` runs it; it exits 1 and names each climbing import and each loop. No exceptions list:
 * a file that needs to climb is in the wrong folder.
 *
 * Layers, top to bottom (a file may import its own layer and every one below it):
 *   entry      app/routes/, app/root.tsx, app/entry.server.tsx, app/routes.ts, app/server/, app/cli.ts,
 *              app/placeholder-worker.ts, jobs/
 *   components app/components/ (React; may read the types the HTTP layer hands pages)
 *   http       app/http/ (request wrapper, endpoint table, OpenAPI, MCP, /v1, identity, session, auth)
 *   domain     app/domain/
 *   adapters   app/providers/, app/storage/
 *   lib        app/lib/ (utilities that know no feature)
 *   db         db/
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export type Layer = "entry" | "http" | "components" | "domain" | "adapters" | "lib" | "db";
const RANK: Record<Layer, number> = { entry: 6, components: 5, http: 4, domain: 3, adapters: 2, lib: 1, db: 0 };

/** The layer of a repository-relative path, or undefined for files outside the rule (tests, scripts, assets). */
export function layerOf(path: string): Layer | undefined {
  if (path.startsWith("db/")) return "db";
  if (path.startsWith("jobs/")) return "entry";
  if (!path.startsWith("app/")) return undefined;
  const rest = path.slice(4);
  if (rest.startsWith("lib/")) return "lib";
  if (rest.startsWith("providers/") || rest.startsWith("storage/")) return "adapters";
  if (rest.startsWith("domain/")) return "domain";
  if (rest.startsWith("components/")) return "components";
  if (rest.startsWith("http/")) return "http";
  if (rest.startsWith("public/")) return undefined;
  return "entry";
}

const SOURCE = /\.(ts|tsx)$/;
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^;'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

/** Every import specifier of a source text (static, re-exports, side-effect and dynamic imports). */
export function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

/** The repository-relative file an import names, or undefined for a package or a non-source file. */
export function resolveImport(from: string, spec: string, exists: (p: string) => boolean): string | undefined {
  let base: string;
  if (spec.startsWith("~/")) base = `app/${spec.slice(2)}`;
  else if (spec.startsWith("#db/")) base = `db/${spec.slice(4)}`;
  else if (spec.startsWith("#jobs/")) base = `jobs/${spec.slice(6)}`;
  else if (spec.startsWith(".")) base = join(dirname(from), spec);
  else return undefined;
  base = base.replace(/\?.*$/, "");
  for (const c of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`])
    if (SOURCE.test(c) && exists(c)) return c;
  return undefined;
}

export interface Violation {
  kind: "climb" | "loop";
  text: string;
}

/** The rule over a graph (file → the files it imports). */
export function checkGraph(graph: Map<string, string[]>): Violation[] {
  const out: Violation[] = [];
  for (const [from, tos] of graph) {
    const lf = layerOf(from);
    if (!lf) continue;
    for (const to of tos) {
      const lt = layerOf(to);
      if (lt && RANK[lt] > RANK[lf]) out.push({ kind: "climb", text: `${from} (${lf}) imports ${to} (${lt})` });
    }
  }
  for (const loop of loops(graph)) out.push({ kind: "loop", text: [...loop, loop[0]].join(" → ") });
  return out;
}

/** The strongly connected components with more than one file (Tarjan), each as one loop through its files. */
export function loops(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return found;
}

function walk(root: string, dir: string, out: string[]) {
  for (const name of readdirSync(join(root, dir))) {
    const rel = `${dir}/${name}`;
    if (name === "node_modules" || name.startsWith(".")) continue;
    if (statSync(join(root, rel)).isDirectory()) walk(root, rel, out);
    else if (SOURCE.test(name) && !name.endsWith(".gen.ts") && !name.endsWith(".d.ts")) out.push(rel);
  }
}

/** The import graph of a checkout's app/, db/ and jobs/. */
export function importGraph(root: string): Map<string, string[]> {
  const files: string[] = [];
  for (const d of ["app", "db", "jobs"]) if (existsSync(join(root, d))) walk(root, d, files);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const tos = new Set<string>();
    for (const s of specifiers(readFileSync(join(root, f), "utf8"))) {
      const to = resolveImport(f, s, (p) => known.has(p));
      if (to && to !== f) tos.add(to);
    }
    graph.set(f, [...tos]);
  }
  return graph;
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dir, ".."));
  const graph = importGraph(root);
  const bad = checkGraph(graph);
  for (const v of bad) console.error(`layers: ${v.kind === "climb" ? "climbing import" : "import loop"}: ${v.text}`);
  const edges = [...graph.values()].reduce((n, t) => n + t.length, 0);
  if (bad.length) {
    console.error(
      `layers: ${bad.length} violation(s) of the layer rule (docs/design.md §1.1) in ${relative(process.cwd(), root) || "."}`,
    );
    process.exit(1);
  }
  console.log(`layers: ${graph.size} files, ${edges} imports, none climbs, no loops`);
}
