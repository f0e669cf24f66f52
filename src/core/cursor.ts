import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.js';

/**
 * Opaque keyset cursors. A cursor carries the sort key of the last row served and a hash
 * of the workspace, route and filters it was made for, signed with HMAC-SHA256 under a
 * secret of the installation: a cursor reused with other filters, altered, or made by
 * anyone but this installation is INVALID_CURSOR. `limit` is not bound, so a client may
 * change the page size between pages.
 */

const SEAL = 'wsx-cursor-v2';

// Every page hashes its filters and signs its next cursor, so both skip per-call overhead:
// the hash is one-shot, and the HMAC takes the seal, a newline and the body in one update
// (the same bytes, so cursors signed before stay valid).
const digest = (text: string): string => hash('sha256', text, 'base64url').slice(0, 22);

const sign = (key: Buffer, body: string): Buffer => createHmac('sha256', key).update(`${SEAL}\n${body}`).digest();

/** Stable hash of a scope (route + workspace) and its filters; key order does not matter. */
export function filterHash(scope: string, filters: Record<string, unknown>): string {
  const normalised = Object.keys(filters)
    .filter((k) => filters[k] !== undefined && filters[k] !== null)
    .sort()
    .map((k) => [k, filters[k]]);
  return digest(JSON.stringify([scope, normalised]));
}

/** The type of a sort column, as its list declares it; every position value must have it. */
export type SortColumnType = 'text' | 'integer';

export type KeyValue = string | number;

/** Longer than any id or timestamp a list sorts on; a longer text is not a position. */
const MAX_TEXT_KEY = 512;

const VALUE_CHECKS: Record<SortColumnType, (value: unknown) => boolean> = {
  // U+0000 can never be stored (PostgreSQL refuses it), so no row has it as a key.
  text: (value) => typeof value === 'string' && value.length <= MAX_TEXT_KEY && !value.includes('\u0000'),
  integer: (value) => Number.isSafeInteger(value),
};

export function encodeCursor(position: unknown[], boundTo: string, key: Buffer): string {
  const body = JSON.stringify({ p: position, f: boundTo });
  return Buffer.from(JSON.stringify({ b: body, s: sign(key, body).toString('base64url') })).toString('base64url');
}

function verified(outer: { b?: unknown; s?: unknown }, key: Buffer): string {
  if (typeof outer.b !== 'string' || typeof outer.s !== 'string') throw new Error('shape');
  const expected = sign(key, outer.b);
  const given = Buffer.from(outer.s, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error('signature');
  return outer.b;
}

/**
 * The position a cursor carries, checked in this order: the signature, the list it must
 * belong to, then each value against its column's declared type. The signature alone
 * already rules out forged values; the type check keeps a position that does not fit the
 * list (e.g. after a change of sort columns) from ever reaching SQL.
 */
export function decodeCursor(
  cursor: string,
  boundTo: string,
  columnTypes: readonly SortColumnType[],
  key: Buffer,
): KeyValue[] {
  try {
    const body = verified(
      JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { b?: unknown; s?: unknown },
      key,
    );
    const inner = JSON.parse(body) as { p: unknown; f: unknown };
    if (inner.f !== boundTo || !Array.isArray(inner.p)) throw new Error('scope');
    const position: unknown[] = inner.p;
    if (position.length !== columnTypes.length || !position.every((value, i) => VALUE_CHECKS[columnTypes[i]](value)))
      throw new Error('position');
    return position as KeyValue[];
  } catch {
    throw new ApiError('INVALID_CURSOR', { field: 'cursor' });
  }
}
