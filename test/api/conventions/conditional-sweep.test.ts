import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../../src/api/catalog.js';
import { takesVersionCondition } from '../../../src/operations/define.js';
import { countRows } from '../../support/database.js';
import { exampleRequest, seedExampleRecords, type ExampleRecords } from '../../support/example-requests.js';
import { TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * Conditional requests on every route, on the seeded records of the request examples
 * (support/example-requests.ts). Every read that answers 200 carries an ETag and, sent again
 * with that tag in If-None-Match, answers 304 without a body. Every write that changes a
 * versioned record, sent with an If-Match of a version no record has, is refused
 * 412 PRECONDITION_FAILED and writes nothing. Runs on SQLite, and on PostgreSQL with
 * TEST_DATABASE_URL.
 */

let h: Harness;
let seeded: ExampleRecords;
const admin = { token: TOKENS.admin };

beforeAll(async () => {
  h = await startHarness();
  seeded = await seedExampleRecords(h);
}, 120_000);
afterAll(() => h?.close());

describe('conditional requests on every route', () => {
  const reads = catalog.filter((op) => op.method === 'GET');
  const versioned = catalog.filter(takesVersionCondition);

  it('covers every read and every versioned write', () => {
    expect(reads.length).toBeGreaterThan(30);
    expect(versioned.length).toBeGreaterThan(10);
  });

  for (const op of reads) {
    it(`${op.id}: an ETag, and 304 while it is current`, async () => {
      const { path } = await exampleRequest(h, seeded, op);
      const first = await h.call('GET', path, admin);
      expect(first.status, JSON.stringify(first.body)?.slice(0, 300)).toBe(200);
      const tag = first.headers.etag;
      expect(tag).toMatch(/^"[^"]+"$/);
      const again = await h.call('GET', path, { ...admin, headers: { 'if-none-match': String(tag) } });
      expect(again.status).toBe(304);
      expect(again.body).toBeUndefined();
      expect(again.headers.etag).toBe(tag);
    });
  }

  for (const op of versioned) {
    it(`${op.id}: a version no record has is refused 412, writing nothing`, async () => {
      const { path, body } = await exampleRequest(h, seeded, op);
      const before = await countRows(h.database.db, 'outbox_events');
      const reply = await h.call(op.method, path, {
        ...admin,
        body: body ?? (op.method === 'DELETE' ? undefined : {}),
        headers: { 'if-match': '"999999"' },
      });
      expect(reply.status, JSON.stringify(reply.body)?.slice(0, 300)).toBe(412);
      expect(reply.body.code).toBe('PRECONDITION_FAILED');
      expect(await countRows(h.database.db, 'outbox_events')).toBe(before);
    });
  }
});
