import { isCalendarDate } from '../../core/values.js';
import { fail } from './errors.js';

/**
 * Readers for the raw (parsed YAML/JSON) file. Each checks one value, names its path on
 * failure and returns it normalised; `null` reads as "not given", as YAML writes `key:`.
 */

export type Fields = Record<string, unknown>;

/** `teams` + 0 → `teams[0]`; `teams[0]` + `key` → `teams[0].key`. */
export const at = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export function readObject(value: unknown, path: string, allowedKeys: readonly string[]): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'must be an object');
  for (const key of Object.keys(value)) {
    if (!allowedKeys.includes(key)) fail(at(path, key), `unknown key (expected one of ${allowedKeys.join(', ')})`);
  }
  return value as Fields;
}

export function readList(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, 'must be a list');
  return value;
}

export interface StringRule {
  pattern?: RegExp;
  max?: number;
  /** Upper-case before the pattern check (keys typed in lower case are accepted). */
  upperCase?: boolean;
}

export function optionalString(fields: Fields, key: string, path: string, rule: StringRule = {}): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  return checkString(value, at(path, key), rule);
}

export function requiredString(fields: Fields, key: string, path: string, rule: StringRule = {}): string {
  const value = optionalString(fields, key, path, rule);
  if (value === undefined) fail(at(path, key), 'is required');
  return value;
}

/** One string value (a list element or a field), trimmed and checked against `rule`. */
export function checkString(value: unknown, path: string, rule: StringRule = {}): string {
  if (typeof value !== 'string') fail(path, 'must be a string');
  let text = value.trim();
  if (text.length === 0) fail(path, 'must not be empty');
  if (rule.max !== undefined && text.length > rule.max) fail(path, `must be at most ${rule.max} characters`);
  if (rule.upperCase) text = text.toUpperCase();
  if (rule.pattern && !rule.pattern.test(text)) fail(path, `must match ${rule.pattern.source}`);
  return text;
}

export function optionalBoolean(fields: Fields, key: string, path: string): boolean | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') fail(at(path, key), 'must be true or false');
  return value;
}

export function optionalDate(fields: Fields, key: string, path: string): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (!isCalendarDate(value)) fail(at(path, key), 'must be a calendar date YYYY-MM-DD');
  return value;
}

export function optionalStringList(
  fields: Fields,
  key: string,
  path: string,
  rule: StringRule = {},
): string[] | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  const where = at(path, key);
  return readList(value, where).map((item, index) => checkString(item, at(where, index), rule));
}

/** How one entry of a list of objects reads (a user of `users`, a status of `teams[0].statuses`). */
export interface EntryFormat<T> {
  /** The keys an entry may have; any other is refused. */
  keys: readonly string[];
  /** Reads the entry's fields; `path` is the entry's own (`users[0]`). */
  read(fields: Fields, path: string): T;
  /**
   * What no two entries may share, and what the refusal calls it (`duplicate handle "alice"`).
   * Left out where entries may repeat.
   */
  unique?: { identity: (entry: T) => string; what: string };
}

/** A list of objects read entry by entry with `format`; a duplicate is refused only once every entry reads. */
export function readEntries<T>(value: unknown, path: string, format: EntryFormat<T>): T[] {
  const entries = readList(value, path).map((item, index) => {
    const where = at(path, index);
    return format.read(readObject(item, where, format.keys), where);
  });
  if (format.unique) refuseDuplicates(entries, path, format.unique.identity, format.unique.what);
  return entries;
}

/** Refuses a second entry with the same identity (`what` names it in the message). */
function refuseDuplicates<T>(items: T[], path: string, identity: (item: T) => string, what: string): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const id = identity(item);
    if (seen.has(id)) fail(at(path, index), `duplicate ${what} "${id}"`);
    seen.add(id);
  });
}
