import { createHash } from 'node:crypto';
import { ApiError } from './errors.js';

/**
 * Opaque keyset cursors. A cursor carries the sort key of the last row served and a hash
 * of the workspace, route and filters it was made for, sealed with a checksum: a cursor
 * reused with other filters, or altered, is INVALID_CURSOR. `limit` is not bound, so a
 * client may change the page size between pages.
 */

const SEAL = 'wsx-cursor-v1';

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/** Stable hash of a scope (route + workspace) and its filters; key order does not matter. */
export function filterHash(scope: string, filters: Record<string, unknown>): string {
  const normalised = Object.keys(filters)
    .filter((k) => filters[k] !== undefined && filters[k] !== null)
    .sort()
    .map((k) => [k, filters[k]]);
  return digest(JSON.stringify([scope, normalised]));
}

export function encodeCursor(position: unknown[], boundTo: string): string {
  const body = JSON.stringify({ p: position, f: boundTo });
  return Buffer.from(JSON.stringify({ b: body, s: digest(SEAL + body) })).toString('base64url');
}

type KeyValue = string | number | null;

/** Sort-key values as columns hold them: never objects, arrays or booleans (the seal is no secret). */
const isKeyValue = (value: unknown): value is KeyValue => value === null || typeof value === 'string' || typeof value === 'number';

/** The position a cursor carries, checked against the list it must belong to and its key width. */
export function decodeCursor(cursor: string, boundTo: string, keyWidth: number): KeyValue[] {
  try {
    const outer = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { b: string; s: string };
    if (typeof outer.b !== 'string' || outer.s !== digest(SEAL + outer.b)) throw new Error('seal');
    const inner = JSON.parse(outer.b) as { p: unknown; f: string };
    if (inner.f !== boundTo || !Array.isArray(inner.p)) throw new Error('scope');
    if (inner.p.length !== keyWidth || !inner.p.every(isKeyValue)) throw new Error('position');
    return inner.p;
  } catch {
    throw new ApiError('INVALID_CURSOR', { field: 'cursor' });
  }
}
