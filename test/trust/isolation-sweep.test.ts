import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../src/api/catalog.js';
import type { Operation } from '../../src/operations/define.js';
import {
  exampleRequest,
  seedExampleRecords,
  type ExampleRecords,
  type ExampleRequest,
} from '../support/example-requests.js';
import { countRows } from '../support/database.js';
import { GLOBEX, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { postMcp, toolCall } from '../support/raw-mcp.js';

/**
 * Records a caller may not see, on every route: to a caller of workspace Globex, a record of
 * workspace Acme is exactly a record that does not exist; so is, to a token that may use no
 * project, a record of one of Acme's projects.
 *
 * Each operation that names such a record by id (support/example-requests.ts: the request
 * example, or the path alone, with Acme's seeded ids) is sent twice: as it is, and with each
 * hidden id replaced by a well-formed id no store has. Both answers must be the same refusal,
 * with the same code and the same details once each id is read as a placeholder: nothing
 * tells the caller that the record exists. The answer may hold no hidden id the request did
 * not send, and no event may be recorded. The same holds for every tool over MCP. Operations
 * that name no hidden record by id (lists, creates by team and project key, which Globex also
 * has) are left out. Runs on SQLite, and on PostgreSQL with TEST_DATABASE_URL.
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

/** Which of Acme's records a caller must not see. */
type Hidden = (id: string) => boolean;

/** The value with every hidden id in it (in text, at any depth) replaced by one no store has. */
function withAbsentIds(value: unknown, hidden: Hidden): unknown {
  if (typeof value === 'string') return value.replace(ANY_RECORD_ID, (id) => (hidden(id) ? absentId(id) : id));
  if (Array.isArray(value)) return value.map((item) => withAbsentIds(item, hidden));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withAbsentIds(item, hidden)]));
  return value;
}

const idsIn = (value: unknown): string[] => JSON.stringify(value ?? null).match(ANY_RECORD_ID) ?? [];

const eventCount = () => countRows(h.database.db, 'outbox_events');

/** The request of `op` on Acme's records, or undefined when it names no hidden one by id. */
async function acmeRequest(op: Operation, hidden: Hidden): Promise<ExampleRequest | undefined> {
  const request = await exampleRequest(h, seeded, op);
  return idsIn(request).some(hidden) ? request : undefined;
}

/** How a request reaches the server: its answer, and whether that answer is a refusal. */
type Door = (op: Operation, request: ExampleRequest, token: string) => Promise<{ refused: boolean; answer: unknown }>;

const overHttp: Door = async (op, request, token) => {
  const body = request.body ?? (op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
  const reply = await h.call(op.method, request.path, { token, body });
  return { refused: reply.status >= 400, answer: { status: reply.status, body: reply.body } };
};

/** The same operation as its tool, with every toolset offered: path parameters and body side by side. */
const overMcp: Door = async (op, request, token) => {
  const args = JSON.stringify({ ...request.params, ...(request.body ?? {}) });
  const reply = await postMcp(h, toolCall(1, op.id, args), token, '/api/mcp?toolsets=all');
  // A hidden record is refused by the tool (isError with its code), never by the protocol.
  expect(reply.body?.error, `${op.id}: ${JSON.stringify(reply.body).slice(0, 300)}`).toBeUndefined();
  return { refused: reply.body?.result?.isError === true, answer: { status: reply.status, body: reply.body } };
};

/** An answer with every id in it read as the same placeholder, for comparing two answers. */
const shapeOf = (answer: unknown): unknown =>
  JSON.parse(JSON.stringify(answer).replace(ANY_RECORD_ID, (id) => id.split('_')[0] + '_…'));

beforeAll(async () => {
  h = await startHarness();
  seeded = await seedExampleRecords(h);
  collectIds(seeded);
  const acmeUsers = await h.call('GET', '/api/external/users', { token: TOKENS.admin });
  collectIds(acmeUsers.body);
  await h.apply(GLOBEX);
}, 120_000);
afterAll(() => h?.close());

/**
 * Sends every operation that names a hidden record as `token` through `door`, then the same
 * request with each hidden id absent, and holds the two answers to the rules at the top.
 * Answers the operations compared.
 */
async function compareWithAbsent(door: Door, token: string, hidden: Hidden): Promise<string[]> {
  const compared: string[] = [];
  for (const op of catalog) {
    const request = await acmeRequest(op, hidden);
    if (!request) continue;
    const before = await eventCount();
    const named = await door(op, request, token);
    const absent = await door(op, withAbsentIds(request, hidden) as ExampleRequest, token);
    const label = `${op.id} ${request.path} → ${JSON.stringify(named.answer)?.slice(0, 300)}`;
    expect(named.refused, label).toBe(true);
    expect(shapeOf(named.answer), label).toEqual(shapeOf(absent.answer));
    const sent = new Set(idsIn(request));
    const leaked = idsIn(named.answer).filter((id) => hidden(id) && !sent.has(id));
    expect(leaked, `${label}: names hidden records it was not sent`).toEqual([]);
    expect(await eventCount(), `${label}: recorded an event`).toBe(before);
    compared.push(op.id);
  }
  return compared;
}

/** Prefixes of the records that belong to a project: what a token without the project must not see. */
const PROJECT_RECORDS = new Set(['prj', 'iss', 'sub', 'ic', 'ms', 'cmt', 'lnk', 'att']);

describe("another workspace's records on every route", () => {
  it('are answered exactly as records that do not exist, naming nothing of theirs', async () => {
    const compared = await compareWithAbsent(overHttp, TOKENS.globex, (id) => acmeIds.has(id));
    // Nearly every operation names a record by id; the few that do not are lists and creates.
    expect(compared.length).toBeGreaterThan(70);
  }, 120_000);

  it('are answered the same way by every tool over MCP', async () => {
    const compared = await compareWithAbsent(overMcp, TOKENS.globex, (id) => acmeIds.has(id));
    expect(compared.length).toBeGreaterThan(70);
  }, 120_000);

  it('leave the caller with nothing of Acme in its own lists', async () => {
    for (const op of catalog.filter((candidate) => candidate.method === 'GET' && !candidate.path.includes('{'))) {
      const reply = await h.call('GET', op.path, { token: TOKENS.globex });
      expect(
        idsIn(reply.body).filter((id) => acmeIds.has(id)),
        `${op.id} names Acme records`,
      ).toEqual([]);
    }
  });
});

describe('records of a project the token cannot see, on every route', () => {
  it('are answered exactly as records that do not exist, naming nothing of them', async () => {
    const hidden = (id: string) => acmeIds.has(id) && PROJECT_RECORDS.has(id.split('_')[0]);
    // The token `idle` may use no project at all.
    for (const door of [overHttp, overMcp])
      expect((await compareWithAbsent(door, TOKENS.idle, hidden)).length).toBeGreaterThan(30);
  }, 120_000);
});
