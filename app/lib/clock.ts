/** Time as a dependency, so expiry, check-in days and rate windows are testable. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export function manualClock(start = Date.parse("2026-11-22T10:00:00.000Z")) {
  let t = start;
  return {
    now: () => t,
    set: (ms: number) => void (t = ms),
    advance: (ms: number) => void (t += ms),
  };
}

export const iso = (ms: number | Date | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

/** The UTC calendar day of an instant, `YYYY-MM-DD`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export const DAY_MS = 86_400_000;
