/**
 * The route pattern a request path falls under ("/studio/:genId", "/api/*"), for metrics labels: the label set stays
 * as small as the route table however many different paths clients send.
 */
import type { ServerBuild } from "react-router";

interface Pattern {
  label: string;
  regex: RegExp;
  /** Static segments first, then parameters, splats last: the most specific pattern wins. */
  rank: number;
}

const escapeRegex = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/** The full path of every route in the build, parents' paths joined. */
function fullPaths(build: ServerBuild): string[] {
  const routes = build.routes;
  const out = new Set<string>();
  for (const route of Object.values(routes)) {
    if (!route) continue;
    const parts: string[] = [];
    for (let r: typeof route | undefined = route; r; r = r.parentId ? routes[r.parentId] : undefined) {
      if (r.path) parts.unshift(r.path);
    }
    out.add(`/${parts.join("/")}`.replace(/\/+/g, "/"));
  }
  return [...out];
}

export function routeLabeler(build: ServerBuild, extra: string[] = []): (pathname: string) => string {
  const patterns: Pattern[] = [...fullPaths(build), ...extra].map((label) => {
    const segments = label.split("/").filter(Boolean);
    let rank = 0;
    const body = segments
      .map((seg) => {
        if (seg === "*") {
          rank += 1;
          return "(?:/.*)?";
        }
        if (seg.startsWith(":")) {
          rank += 10;
          return "/[^/]+";
        }
        rank += 100;
        return `/${escapeRegex(seg)}`;
      })
      .join("");
    return { label, regex: new RegExp(`^${body || "/"}/?$`), rank };
  });
  patterns.sort((a, b) => b.rank - a.rank || b.label.length - a.label.length);
  const cache = new Map<string, string>();
  return (pathname) => {
    const hit = cache.get(pathname);
    if (hit) return hit;
    const label = patterns.find((p) => p.regex.test(pathname))?.label ?? "unmatched";
    // Bounded: a client spraying paths fills the cache once, then it starts over.
    if (cache.size >= 2_000) cache.clear();
    cache.set(pathname, label);
    return label;
  };
}
