import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../src/api/catalog.js';
import type { Operation } from '../../src/operations/define.js';
import {
  examplePath,
  operationFields,
  requestExamples,
  seedExampleRecords,
  substituted,
  type ExampleRecords,
} from '../support/example-requests.js';
import { countRows } from '../support/database.js';
import { GLOBEX, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness, type Reply } from '../support/harness.js';

/**
 * Another workspace's records on every route: to a caller of workspace Globex, a record of
 * workspace Acme is exactly a record that does not exist.
 *
 * Each operation is sent by Globex's administrator twice: once naming Acme's seeded records
 * (support/example-requests.ts: the request example, or the path alone, with Acme's ids), and
 * once with each of those ids replaced by a well-formed id no store has. Both answers must be
 * the same refusal, with the same code and the same details once each id is read as a
 * placeholder: nothing tells the caller that the record exists. Neither answer may hold an id
 * of Acme's that the request did not send, and no event may be recorded. Operations that name
 * no record by id (lists, creates by team and project key, which Globex also has) are left out.
 * Runs on SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */

/** The ids the store makes: a type prefix and 26 characters of Crockford base 32. */
const RECORD_ID = /^[a-z]+_[0-9a-hjkmnp-tv-z]{26}$/;
const ANY_RECORD_ID = /\b[a-z]+_[0-9a-hjkmnp-tv-z]{26}\b/g;

let h: Harness;
let seeded: ExampleRecords;

/** Every record id of Acme's the seeding made. */
const acmeIds = new Set<string>();

function collectIds(value: unknown): void {
  if (typeof value === 'string' && RECORD_ID.test(value)) acmeIds.add(value);
  else if (typeof value === 'object' && value !== null) Object.values(value).forEach(collectIds);
}

/** An id no store has, of the same type: the prefix kept, the rest zeros. */
const absentId = (id: string): string => `${id.slice(0, id.indexOf('_') + 1)}${'0'.repeat(26)}`;

/** The value with every Acme id in it (in text, at any depth) replaced. */
function replaceIds(value: unknown, by: (id: string) => string): unknown {
  if (typeof value === 'string') return value.replace(ANY_RECORD_ID, (id) => (acmeIds.has(id) ? by(id) : id));
  if (Array.isArray(value)) return value.map((item) => replaceIds(item, by));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceIds(item, by)]));
  return value;
}

const eventCount = () => countRows(h.database.db, 'outbox_events');

/** The request of `op` naming Acme's records: path and body, or undefined when it names none by id. */
async function acmeRequest(op: Operation): Promise<{ path: string; body: unknown } | undefined> {
  const fields = operationFields(h, seeded, op);
  const example = requestExamples.find((candidate) => candidate.op === op)?.example;
  const path = await examplePath(op, fields);
  const body = example === undefined ? undefined : await substituted(example, fields);
  const named = JSON.stringify([path, body ?? null]).match(ANY_RECORD_ID) ?? [];
  return named.some((id) => acmeIds.has(id)) ? { path, body } : undefined;
}

/** The answer with every id in it read as the same placeholder, for comparing two answers. */
const shapeOf = (reply: Reply): unknown => ({
  status: reply.status,
  body: JSON.parse(JSON.stringify(reply.body ?? null).replace(ANY_RECORD_ID, (id) => id.split('_')[0] + '_…')),
});

beforeAll(async () => {
  h = await startHarness();
  seeded = await seedExampleRecords(h);
  collectIds(seeded);
  const acmeUsers = await h.call('GET', '/api/external/users', { token: TOKENS.admin });
  collectIds(acmeUsers.body);
  await h.apply(GLOBEX);
}, 120_000);
afterAll(() => h?.close());

describe("another workspace's records on every route", () => {
  const asGlobex = (op: Operation, path: string, body: unknown) =>
    h.call(op.method, path, {
      token: TOKENS.globex,
      body: body ?? (op.method === 'GET' || op.method === 'DELETE' ? undefined : {}),
    });

  it('are answered exactly as records that do not exist, naming nothing of theirs', async () => {
    const compared: string[] = [];
    for (const op of catalog) {
      const request = await acmeRequest(op);
      if (!request) continue;
      const before = await eventCount();
      const acme = await asGlobex(op, request.path, request.body);
      const absent = await asGlobex(
        op,
        replaceIds(request.path, absentId) as string,
        replaceIds(request.body, absentId),
      );
      const label = `${op.id} ${request.path} → ${acme.status} ${JSON.stringify(acme.body)?.slice(0, 300)}`;
      expect(acme.status, label).toBeGreaterThanOrEqual(400);
      expect(shapeOf(acme), label).toEqual(shapeOf(absent));
      const sent = new Set(JSON.stringify([request.path, request.body ?? null]).match(ANY_RECORD_ID) ?? []);
      const named = (JSON.stringify(acme.body).match(ANY_RECORD_ID) ?? []).filter(
        (id) => acmeIds.has(id) && !sent.has(id),
      );
      expect(named, `${label}: names Acme records it was not sent`).toEqual([]);
      expect(await eventCount(), `${label}: recorded an event`).toBe(before);
      compared.push(op.id);
    }
    // Nearly every operation names a record by id; the few that do not are lists and creates.
    expect(compared.length).toBeGreaterThan(70);
  }, 120_000);

  it('leave the caller with nothing of Acme in its own lists', async () => {
    for (const op of catalog.filter((candidate) => candidate.method === 'GET' && !candidate.path.includes('{'))) {
      const reply = await h.call('GET', op.path, { token: TOKENS.globex });
      const named = (JSON.stringify(reply.body ?? null).match(ANY_RECORD_ID) ?? []).filter((id) => acmeIds.has(id));
      expect(named, `${op.id} names Acme records`).toEqual([]);
    }
  });
});
