import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asciiDataRow } from '../src/db/pg-data-rows.js';
import { ACME, TOKENS } from './support/fixtures.js';
import { startHarness, type Harness } from './support/harness.js';

/**
 * PostgreSQL rows are read one string per row when their values are ASCII
 * (src/db/pg-data-rows.ts). Whatever a row holds, its values must come out exactly as pg
 * reads them column by column, or be left to pg.
 */

/** A DataRow message body as PostgreSQL sends it: the column count, then each length (-1 for NULL) and its bytes. */
function dataRow(values: Array<string | null>): Buffer {
  const parts: Buffer[] = [Buffer.alloc(2)];
  parts[0].writeInt16BE(values.length);
  for (const value of values) {
    const length = Buffer.alloc(4);
    const bytes = value === null ? undefined : Buffer.from(value, 'utf8');
    length.writeInt32BE(bytes ? bytes.length : -1);
    parts.push(length, ...(bytes ? [bytes] : []));
  }
  return Buffer.concat(parts);
}

/** pg's own reading of a DataRow body (pg-protocol's parseDataRowMessage). */
function asPgReadsIt(bytes: Buffer, start: number): Array<string | null> {
  const count = bytes.readInt16BE(start);
  let at = start + 2;
  const values: Array<string | null> = [];
  for (let column = 0; column < count; column++) {
    const length = bytes.readInt32BE(at);
    at += 4;
    values.push(length === -1 ? null : bytes.toString('utf8', at, at + length));
    at += Math.max(length, 0);
  }
  return values;
}

/** A row inside a larger buffer, as pg's parser holds it: other bytes before and after. */
function inBuffer(row: Buffer): { bytes: Buffer; start: number; end: number } {
  const before = Buffer.from([0x44, 0xff, 0x80, 0x00]);
  const after = Buffer.from([0xc3, 0xa9, 0x5a]);
  return { bytes: Buffer.concat([before, row, after]), start: before.length, end: before.length + row.length };
}

describe('ASCII data rows', () => {
  it('read like pg: NULLs, empty values, and lengths whose bytes are 0x80 or more', () => {
    const values = [
      'iss_01m8h95x3sj03hc9b7qsa5qex7',
      null,
      '',
      'x'.repeat(127),
      'y'.repeat(128),
      'z'.repeat(255),
      'w'.repeat(32_896),
      null,
      '2026-11-28T14:33:00.916Z',
      '{"tags":["a"]}',
    ];
    const { bytes, start, end } = inBuffer(dataRow(values));
    expect(asciiDataRow(bytes, start, end)).toEqual(values);
    expect(asciiDataRow(bytes, start, end)).toEqual(asPgReadsIt(bytes, start));
  });

  it('a row with 128 columns (its count has a byte of 0x80) and none', () => {
    const many = Array.from({ length: 128 }, (_, n) => (n % 3 === 0 ? null : `v${n}`));
    const wide = inBuffer(dataRow(many));
    expect(asciiDataRow(wide.bytes, wide.start, wide.end)).toEqual(many);
    const empty = inBuffer(dataRow([]));
    expect(asciiDataRow(empty.bytes, empty.start, empty.end)).toEqual([]);
  });

  it('leaves to pg a row with any value beyond ASCII', () => {
    for (const other of ['é', 'Überprüfung — fertig', '😀', 'ascii then \u0080', '\u00ff']) {
      const { bytes, start, end } = inBuffer(dataRow(['plain', null, other, 'y'.repeat(200)]));
      expect(asciiDataRow(bytes, start, end), other).toBeUndefined();
    }
  });

  it('leaves to pg a malformed row: lengths that do not add up to its size, or one below -1', () => {
    const row = dataRow(['abc', 'def']);
    expect(asciiDataRow(row, 0, row.length - 1)).toBeUndefined();
    expect(asciiDataRow(Buffer.concat([row, Buffer.from('x')]), 0, row.length + 1)).toBeUndefined();
    expect(asciiDataRow(row, 0, 1)).toBeUndefined();
    // A length below -1 (only NULL's -1 is negative) whose bytes still add up.
    const negative = dataRow(['abc', null]);
    negative.writeInt32BE(-2, 2 + 4 + 3);
    expect(asciiDataRow(negative, 0, negative.length)).toBeUndefined();
  });

  it('agrees with pg on random rows', () => {
    const alphabet = ['a', 'Z', '0', ' ', '"', '\\', '\n', '\u007f', 'é', '€', '😀', '\u0080'];
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % below;
    };
    for (let round = 0; round < 500; round++) {
      const values = Array.from({ length: 1 + random(40) }, () =>
        random(5) === 0
          ? null
          : Array.from(
              { length: random(3) === 0 ? 100 + random(300) : random(20) },
              () =>
                // Mostly ASCII, so both ways of reading are exercised.
                alphabet[random(8) === 0 ? random(alphabet.length) : random(8)],
            ).join(''),
      );
      const { bytes, start, end } = inBuffer(dataRow(values));
      const read = asciiDataRow(bytes, start, end);
      const ascii = values.every((value) => value === null || [...value].every((char) => char.charCodeAt(0) < 0x80));
      expect(read === undefined, JSON.stringify(values)).toBe(!ascii);
      if (read) expect(read).toEqual(values);
    }
  });
});

describe('values through the API, on the store of this pass', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness([ACME]);
  });
  afterAll(async () => h?.close());

  it('come back exactly, ASCII or not, short or long', async () => {
    const texts = [
      ['Plain ASCII title', 'd'.repeat(300)],
      ['Überprüfung — fertig', 'Beschreibung mit Umlauten: äöü ß, and 😀'],
      ['Tab\there "quoted" \\ back', `${'e'.repeat(40_000)} é`],
    ];
    const keys: string[] = [];
    for (const [title, description] of texts) {
      const created = await h.call('POST', '/api/external/issues', {
        token: TOKENS.admin,
        body: { projectKey: 'API', title, description },
      });
      expect(created.status).toBe(201);
      keys.push(created.body.issue.issueKey);
    }
    for (const [n, key] of keys.entries()) {
      const read = await h.call('GET', `/api/external/issues/by-key/${key}`, { token: TOKENS.admin });
      expect(read.status).toBe(200);
      expect([read.body.issue.title, read.body.issue.description]).toEqual(texts[n]);
    }
    const page = await h.call('GET', '/api/external/issues?projectKey=API&limit=200', { token: TOKENS.admin });
    expect(page.status).toBe(200);
    for (const [n, key] of keys.entries()) {
      const listed = page.body.issues.find((issue: { issueKey: string }) => issue.issueKey === key);
      expect([listed.title, listed.description]).toEqual(texts[n]);
    }
  });
});
