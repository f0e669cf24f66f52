import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * Opaque, time-sortable ids with a type prefix (`prj_01j…`). The ULID's time part is the
 * creation instant, so ordering by id agrees with ordering by createdAt, and within one
 * millisecond the monotonic factory keeps ids increasing.
 */
const nextUlid = monotonicFactory(pooledRandom());

/**
 * The fractions ulid draws its random characters from, one random byte each as its own
 * default does, but taken from a pool: one system call per character cost more than the
 * rest of making an id.
 */
function pooledRandom(): () => number {
  const pool = new Uint8Array(1024);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++] / 256;
  };
}

export type IdPrefix =
  | 'ws'
  | 'usr'
  | 'team'
  | 'st'
  | 'prj'
  | 'tok'
  | 'oat'
  | 'tag'
  | 'iss'
  | 'ic'
  | 'ms'
  | 'evo'
  | 'cmt'
  | 'lnk'
  | 'att'
  | 'sub'
  | 'mtg'
  | 'ags'
  | 'agp'
  | 'agi'
  | 'own'
  | 'pre'
  | 'wl'
  | 'dgr'
  | 'top'
  | 'whk'
  | 'evt'
  | 'dlv'
  | 'act'
  | 'lgn'
  | 'ses'
  | 'ocl'
  | 'oar'
  | 'ogr'
  | 'orf';

export function newId(prefix: IdPrefix, at: number = Date.now()): string {
  return `${prefix}_${nextUlid(at).toLowerCase()}`;
}
