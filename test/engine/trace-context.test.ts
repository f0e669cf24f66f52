import { describe, expect, it } from 'vitest';
import { parseTraceparent, requestTraceOf, traceparentOf } from '../../src/core/trace-context.js';

/** W3C Trace Context, level 1: which `traceparent` values are continued, and what is sent on. */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe('parseTraceparent', () => {
  it('reads version 00, flags as sent', () => {
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-01`)).toEqual({
      traceId: TRACE_ID,
      parentId: PARENT_ID,
      flags: '01',
    });
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-00`)?.flags).toBe('00');
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-ff`)?.flags).toBe('ff');
  });

  it('reads the four fields of a later version, with or without more after a dash', () => {
    const expected = { traceId: TRACE_ID, parentId: PARENT_ID, flags: '01' };
    expect(parseTraceparent(`cc-${TRACE_ID}-${PARENT_ID}-01`)).toEqual(expected);
    expect(parseTraceparent(`01-${TRACE_ID}-${PARENT_ID}-01-what-the-future-holds`)).toEqual(expected);
  });

  it('ignores anything else, never throwing', () => {
    const invalid: unknown[] = [
      undefined,
      null,
      55,
      [`00-${TRACE_ID}-${PARENT_ID}-01`],
      '',
      `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${PARENT_ID.toUpperCase()}-01`,
      `00-${TRACE_ID}-${PARENT_ID}-0A`,
      `0A-${TRACE_ID}-${PARENT_ID}-01`,
      `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `ff-${TRACE_ID}-${PARENT_ID}-01`,
      // Version 00 has exactly four fields.
      `00-${TRACE_ID}-${PARENT_ID}-01-more`,
      `00-${TRACE_ID}-${PARENT_ID}-01 `,
      ` 00-${TRACE_ID}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${PARENT_ID}-01\n`,
      // A later version's fifth field follows a dash.
      `cc-${TRACE_ID}-${PARENT_ID}-01.more`,
      `cc-${TRACE_ID}-${PARENT_ID}-01-line\nbreak`,
      // Wrong lengths.
      `00-${TRACE_ID}0-${PARENT_ID}-01`,
      `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${PARENT_ID}0-01`,
      `00-${TRACE_ID}-${PARENT_ID}-1`,
      `000-${TRACE_ID}-${PARENT_ID}-01`,
      // Two headers joined by the HTTP parser.
      `00-${TRACE_ID}-${PARENT_ID}-01, 00-${TRACE_ID}-${PARENT_ID}-01`,
      // Too long (257 characters), whatever it holds.
      `cc-${TRACE_ID}-${PARENT_ID}-01-${'a'.repeat(201)}`,
    ];
    for (const value of invalid) expect(parseTraceparent(value), JSON.stringify(value)).toBeUndefined();
    // The longest value read: 256 characters.
    expect(parseTraceparent(`cc-${TRACE_ID}-${PARENT_ID}-01-${'a'.repeat(200)}`)).toBeDefined();
  });
});

describe('a request’s span', () => {
  it('is a fresh span id under the caller’s, and what is sent on names it as the parent, in version 00', () => {
    const trace = requestTraceOf(`cc-${TRACE_ID}-${PARENT_ID}-03-more`);
    expect(trace).toMatchObject({ traceId: TRACE_ID, parentId: PARENT_ID, flags: '03' });
    expect(trace?.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(trace?.spanId).not.toBe(PARENT_ID);
    expect(traceparentOf(trace)).toBe(`00-${TRACE_ID}-${trace?.spanId}-03`);
    expect(requestTraceOf(`00-${TRACE_ID}-${PARENT_ID}-01`)?.spanId).not.toBe(trace?.spanId);
  });

  it('is none without a valid traceparent, and nothing is sent on', () => {
    expect(requestTraceOf('00-nope')).toBeUndefined();
    expect(traceparentOf(undefined)).toBeNull();
  });
});
