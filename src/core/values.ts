import { LIMITS } from './limits.js';

/**
 * Small, framework-free checks for values whose errors carry their own code (docs/api.md,
 * "Errors": dates, names, titles). Each returns the normalised value or undefined for
 * "bad", so the caller decides which code to throw.
 */

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date in YYYY-MM-DD form (2026-02-30 is refused). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: the latter reads years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** Whole days from `from` to `to` (both YYYY-MM-DD); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

const DATETIME_WITH_OFFSET_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** An ISO 8601 datetime that carries an offset; answers it normalised to UTC `Z`, else undefined. */
export function normaliseDatetime(value: unknown): string | undefined {
  if (typeof value !== 'string' || !DATETIME_WITH_OFFSET_RE.test(value)) return undefined;
  if (!isCalendarDate(value.slice(0, 10))) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** A non-empty string after trimming, or undefined. */
export function nonBlank(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

/** Own properties only: a client's `__proto__` or `constructor` key never reads the prototype's. */
export const hasOwn = (obj: object, key: string): boolean => Object.prototype.hasOwnProperty.call(obj, key);

/** A client object's own value under `key`, or undefined. */
export const ownValue = (obj: Record<string, unknown>, key: string): unknown =>
  hasOwn(obj, key) ? obj[key] : undefined;

/** An absolute http(s) URL of at most 2,048 characters. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > LIMITS.url) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** The day after the latest of these YYYY-MM-DD dates, or null when there is none. */
export function dayAfterLatest(dates: string[]): string | null {
  const latest = dates.reduce<string | null>((max, date) => (max === null || date > max ? date : max), null);
  return latest === null ? null : addDays(latest, 1);
}
