import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TENANT_TABLES } from '../../../src/db/references.js';
import { acceptsIdempotencyKey } from '../../../src/operations/define.js';
import { countRows } from '../../support/database.js';
import {
  exampleRequest,
  requestExamples,
  seedExampleRecords,
  type ExampleRecords,
} from '../../support/example-requests.js';
import { TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * Idempotency-Key on every write that takes one: each request example
 * (support/example-requests.ts) is sent with a key, then again with the same key and body.
 * The repeat is answered from the record of the first (same status, same body,
 * `Idempotent-Replayed: true`) and writes nothing: no row in any table of workspace records,
 * events included. The same key with another body (a free-text field changed, where the
 * example has one) is refused IDEMPOTENCY_KEY_REUSED. Runs on SQLite, and on PostgreSQL with
 * TEST_DATABASE_URL.
 */

type Json = Record<string, unknown>;

/** Free-text fields: one of them changed leaves a body as valid as it was. */
const FREE_TEXT = ['title', 'name', 'body', 'description', 'notes', 'text'];

/** The body with its first free-text field changed, or undefined when it has none. */
function anotherBody(body: Json): Json | undefined {
  const field = FREE_TEXT.find((name) => typeof body[name] === 'string');
  return field === undefined ? undefined : { ...body, [field]: `${String(body[field])} (again)` };
}

let h: Harness;
let seeded: ExampleRecords;

/** Rows of every table of workspace records, summed: a repeat must leave every one as it was. */
const rowsWritten = async () => {
  let total = 0;
  for (const table of TENANT_TABLES) total += await countRows(h.database.db, table);
  return total;
};

beforeAll(async () => {
  h = await startHarness();
  seeded = await seedExampleRecords(h);
}, 120_000);
afterAll(() => h?.close());

describe('Idempotency-Key on every write that takes one', () => {
  const keyed = requestExamples.filter(({ op }) => acceptsIdempotencyKey(op));

  it('covers every create, most with another body too', () => {
    expect(keyed.length).toBeGreaterThan(25);
    expect(keyed.filter(({ example }) => anotherBody(example as Json) !== undefined).length).toBeGreaterThan(15);
  });

  for (const { op } of keyed) {
    it(`${op.id}: a repeat is replayed and writes nothing; another body is refused`, async () => {
      const { path, body } = await exampleRequest(h, seeded, op);
      const send = (sent: unknown) =>
        h.call(op.method, path, { token: TOKENS.admin, body: sent, headers: { 'idempotency-key': `sweep-${op.id}` } });
      const first = await send(body);
      expect(first.status, JSON.stringify(first.body)).toBeLessThan(300);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const before = await rowsWritten();
      const repeat = await send(body);
      expect(repeat.status).toBe(first.status);
      expect(repeat.body).toEqual(first.body);
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect(await rowsWritten()).toBe(before);
      const other = anotherBody(body as Json);
      if (other === undefined) return;
      const reused = await send(other);
      expect(reused.status, JSON.stringify(reused.body)).toBe(422);
      expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    });
  }
});
