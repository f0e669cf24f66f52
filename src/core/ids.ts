import { monotonicFactory } from 'ulid';

/**
 * Opaque, time-sortable ids with a type prefix (`prj_01j…`). The ULID's time part is the
 * creation instant, so ordering by id agrees with ordering by createdAt, and within one
 * millisecond the monotonic factory keeps ids increasing.
 */
const nextUlid = monotonicFactory();

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
