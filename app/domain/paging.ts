/**
 * Page numbers from the outside world (a query string, a JSON body) end up in
 * an SQL OFFSET: past this page nothing is listed anyway, and a number like
 * 1e308 must not reach the database (it answered 500).
 */
export const MAX_PAGE = 1_000_000;

/** `?page=` of a page: anything that is not a positive number is page 1; huge numbers are clamped. */
export function pageFromQuery(raw: string | null | undefined): number {
  const n = Math.floor(Number(raw ?? "1"));
  if (!Number.isFinite(n) || n < 1) return n === Infinity ? MAX_PAGE : 1;
  return Math.min(n, MAX_PAGE);
}

/** The OFFSET of a (validated) page, clamped like pageFromQuery. */
export const offsetOf = (page: number, pageSize: number) => (Math.min(Math.max(1, page), MAX_PAGE) - 1) * pageSize;
