import { hash } from 'node:crypto';
import { ApiError } from '../core/errors.js';

/**
 * Entity tags of answers (RFC 9110 §8.8.3). A tag is strong and made from the exact bytes
 * of the answer, so it changes whenever anything in the body would and is the same for
 * every caller who is shown the same body. A single resource's tag starts with its
 * `version` (`"7-…"`): If-Match compares that part, so a client may send back the tag of
 * any representation of the record (a `fields=` selection too), or just `"7"`.
 */

// The one-shot hash: a Hash object per answer cost more than hashing the body itself. The
// body is the encoded answer, the bytes it is sent as.
const hashOf = (body: Buffer): string => hash('sha256', body, 'base64url').slice(0, 22);

export const entityTag = (body: Buffer, version?: number): string =>
  version === undefined ? `"${hashOf(body)}"` : `"${version}-${hashOf(body)}"`;

/** At most this many tags, and characters, in one If-Match or If-None-Match header: every loop over input is bounded. */
const MAX_TAGS = 50;
export const MAX_CONDITION_LENGTH = 2048;

function tagsOf(header: string, name: string): string[] {
  if (header.length > MAX_CONDITION_LENGTH)
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: name, max: MAX_CONDITION_LENGTH },
      { message: `${name} is longer than ${MAX_CONDITION_LENGTH} characters.` },
    );
  const tags = header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  if (tags.length > MAX_TAGS)
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: name, max: MAX_TAGS },
      { message: `${name} names more than ${MAX_TAGS} entity tags.` },
    );
  return tags;
}

/**
 * What tagsOf reads, as a regular expression of the whole header: at most MAX_TAGS entries
 * matching `entry`, separated by commas; blanks around an entry and empty entries are
 * skipped, as the split, trim and filter above skip them. `entry` matches a trimmed entry:
 * no comma in it, no blank at its ends.
 */
const entryList = (entry: string): string => `[\\s,]*(?:${entry}(?:\\s*,[\\s,]*${entry}){0,${MAX_TAGS - 1}}[\\s,]*)?`;

/** Any entry: the read's If-None-Match compares entries whatever their form. */
const ANY_ENTRY = '[^,\\s](?:[^,]*[^,\\s])?';
/** An entity tag, weak or strong: what versionCondition takes from an If-Match without `*`. */
const ENTITY_TAG = '(?:W/)?"[^",]*"';
/** An entry that is `*`, somewhere in the header: then versionCondition looks at nothing else. */
const HAS_STAR = '(?=(?:[^,]*,)*\\s*\\*\\s*(?:,|$))';

/** The If-None-Match headers a read takes (stillCurrent), for the OpenAPI document. */
export const IF_NONE_MATCH_PATTERN = `^${entryList(ANY_ENTRY)}$`;

/** The If-Match headers a write takes (versionCondition), for the OpenAPI document. */
export const IF_MATCH_PATTERN = `^(?:${HAS_STAR}${entryList(ANY_ENTRY)}|${entryList(ENTITY_TAG)})$`;

/** If-None-Match on a read: true when the answer the client holds is still current (weak comparison). */
export function stillCurrent(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const opaque = (value: string) => value.replace(/^W\//, '');
  return tagsOf(header, 'If-None-Match').some((given) => given === '*' || opaque(given) === tag);
}

/** What a conditional write requires of the record's current version. */
export type VersionCondition = { anyVersion: true } | { versions: number[] };

const VERSION_TAG = /^"(\d{1,15})(?:-[A-Za-z0-9_-]*)?"$/;

/**
 * If-Match as a version condition. `*` asks only that the record exists. Strong tags give
 * their version; a weak tag or a list's tag can never match a record (so it fails with
 * 412, as the RFC asks). A value that is not an entity tag at all is a client mistake.
 */
export function versionCondition(header: string): VersionCondition {
  const tags = tagsOf(header, 'If-Match');
  if (tags.includes('*')) return { anyVersion: true };
  const versions: number[] = [];
  for (const tag of tags) {
    if (!/^(W\/)?"[^"]*"$/.test(tag))
      throw new ApiError(
        'VALIDATION_FAILED',
        { field: 'If-Match' },
        {
          message: 'If-Match must be * or a list of quoted entity tags.',
          suggestion:
            'Send the ETag of your last read as it came, quotes included (e.g. If-Match: "7-…"), or "7" for version 7.',
        },
      );
    const version = VERSION_TAG.exec(tag);
    if (version) versions.push(Number(version[1]));
  }
  return { versions };
}
