/**
 * One date format everywhere: `22 Nov 2026, 10:00 UTC` — the same on server
 * and client (no locale or time-zone dependence, so hydration never differs).
 */
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export function formatDate(
  iso: string | null | undefined,
  opts: { time?: boolean; seconds?: boolean; empty?: string } = {},
): string {
  if (!iso) return opts.empty ?? "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return opts.empty ?? "—";
  const date = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  if (opts.time === false) return date;
  const pad = (n: number) => String(n).padStart(2, "0");
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${opts.seconds ? `:${pad(d.getUTCSeconds())}` : ""}`;
  return `${date}, ${time} UTC`;
}

/** Kept for callers that want seconds: `formatDate(iso, { seconds: true })`. */
export const utcTime = (iso: string | null | undefined, seconds = false) => formatDate(iso, { seconds });

export function duration(fromIso: string | null | undefined, toIso: string | null | undefined): string {
  if (!fromIso || !toIso) return "—";
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  if (!(ms >= 0)) return "—";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
