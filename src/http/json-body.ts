import { ApiError } from '../core/errors.js';

/**
 * The one JSON body reader (routes and /api/mcp alike). Bytes that are not UTF-8 and
 * strings holding a lone surrogate (`"\ud800"`, which JSON.parse accepts) are refused with
 * INVALID_JSON: decoding them leniently would store U+FFFD in place of what the client
 * sent, and lone surrogates cannot be stored or sent back as UTF-8 at all.
 */

// fatal: a bad byte sequence throws instead of becoming U+FFFD. ignoreBOM keeps a byte
// order mark in the text, so it stays the JSON syntax error it always was.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const wellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** A step of the path to a value, linked to its parent's (no copying as the walk goes deeper). */
interface Step {
  segment: string | number;
  parent: Step | null;
}

function pathOf(step: Step | null): string {
  const segments: Array<string | number> = [];
  for (let at = step; at; at = at.parent) segments.push(at.segment);
  return segments.length === 0 ? 'body' : segments.reverse().join('.');
}

/**
 * The dotted path of the first string (value or key) holding a lone surrogate, or
 * undefined. Iterative, so a deeply nested body cannot exhaust the stack.
 */
function firstIllFormedString(root: unknown): string | undefined {
  const pending: Array<{ value: unknown; step: Step | null }> = [{ value: root, step: null }];
  while (pending.length > 0) {
    const { value, step } = pending.pop() as { value: unknown; step: Step | null };
    if (typeof value === 'string') {
      if (!wellFormed(value)) return pathOf(step);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, step: { segment: index, parent: step } }));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        // A key cannot be named in the path it spoils; the object holding it is.
        if (!wellFormed(key)) return pathOf(step);
        pending.push({ value: item, step: { segment: key, parent: step } });
      }
    }
  }
  return undefined;
}

/** The parsed body; undefined for an empty (or white-space only) body, which means "no body". */
export function parseJsonBody(raw: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new ApiError('INVALID_JSON', { reason: 'invalid_utf8' }, { message: 'The request body is not valid UTF-8.' });
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('INVALID_JSON', {});
  }
  const field = firstIllFormedString(value);
  if (field !== undefined) {
    throw new ApiError(
      'INVALID_JSON',
      { reason: 'lone_surrogate', field },
      {
        message: 'The request body holds a string with an unpaired surrogate escape (\\ud800–\\udfff).',
        suggestion:
          'Escape characters outside the Basic Multilingual Plane as a surrogate pair, or send them as UTF-8.',
      },
    );
  }
  return value;
}
