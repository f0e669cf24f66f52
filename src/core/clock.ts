/** One place that reads the time, so every record of one write shares one instant. */
export function nowIso(at: number = Date.now()): string {
  return new Date(at).toISOString();
}

/** Today's calendar date in UTC, YYYY-MM-DD. */
export function todayUtc(at: number = Date.now()): string {
  return nowIso(at).slice(0, 10);
}
