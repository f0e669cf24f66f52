import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../src/api/catalog.js';
import type { Operation } from '../../src/operations/define.js';
import {
  exampleRequest,
  requestExamples,
  seedExampleRecords,
  type ExampleRecords,
} from '../support/example-requests.js';
import { countRows } from '../support/database.js';
import { TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness, type Reply } from '../support/harness.js';
import { postMcp } from '../support/raw-mcp.js';

/**
 * Hostile input on every route: what a careless or malicious client sends never ends in a
 * 5xx, an undocumented answer or half a write.
 *
 * Each request example of the OpenAPI document (support/example-requests.ts, its
 * placeholders replaced by seeded records) is sent again with one field at a time, at the
 * top level or one level down, replaced by a hostile value: every JSON type where another
 * is expected, numbers past what a column holds, NUL and a lone surrogate (PostgreSQL's text
 * refuses both), impossible dates, 100,000 characters, 5,000 items, nested objects. Every
 * path parameter of every operation, and every query parameter of every read, gets hostile
 * text too. The harness checks each answer against the OpenAPI document; here, no answer is
 * a 5xx, a refusal names its code, and a refused write records no event. Every tool takes
 * the same hostile arguments over MCP: a refusal is a tool result with its code, never
 * INTERNAL_ERROR or a protocol error. Runs on SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */

type Json = Record<string, any>;

const HOSTILE_VALUES: unknown[] = [
  null,
  0,
  -1,
  2 ** 53,
  -(2 ** 63),
  1e308,
  0.5,
  true,
  '',
  ' ',
  'x'.repeat(100_000),
  'a\u0000b',
  '\ud800',
  '2026-02-30',
  '9999-12-31T25:61:00Z',
  [],
  [null],
  Array<string>(5_000).fill('a'),
  {},
  { nested: [{}] },
];

/** Hostile text for a path segment or a query value, as sent (already percent-encoded). */
const HOSTILE_TEXT = [
  '%20',
  'x'.repeat(5_000),
  '%00',
  '%ED%A0%80',
  '..%2F..%2Fetc',
  "'%3B%20drop%20table%20issues%3B--",
  'null',
  '-1',
  '1e309',
  'ENG-99999999999999999999',
  '2026-02-30',
  '%5B%5D',
];

const admin = { token: TOKENS.admin };
let h: Harness;
let seeded: ExampleRecords;

/** The example with `value` in place of one field: each top-level field, and each one level down. */
function* withOneFieldReplaced(example: unknown, value: unknown): Generator<{ field: string; body: unknown }> {
  if (typeof example !== 'object' || example === null) return;
  for (const [name, inner] of Object.entries(example)) {
    const replaced = (next: unknown) =>
      Array.isArray(example)
        ? example.map((item, i) => (String(i) === name ? next : item))
        : { ...example, [name]: next };
    yield { field: name, body: replaced(value) };
    if (typeof inner === 'object' && inner !== null)
      for (const deeper of withOneFieldReplaced(Array.isArray(inner) ? inner.slice(0, 1) : inner, value))
        yield { field: `${name}.${deeper.field}`, body: replaced(deeper.body) };
  }
}

const eventCount = () => countRows(h.database.db, 'outbox_events');

/** Sends one hostile request and holds the answer to the rules above. */
async function sendHostile(op: Operation, path: string, body: unknown, what: string): Promise<Reply> {
  const before = op.method === 'GET' ? 0 : await eventCount();
  const reply = await h.call(op.method, path, { ...admin, body });
  const label = `${op.id} ${what} → ${reply.status} ${JSON.stringify(reply.body)?.slice(0, 300)}`;
  expect(reply.status, label).toBeLessThan(500);
  if (reply.status >= 400) {
    expect(typeof reply.body?.code, label).toBe('string');
    expect(typeof reply.body?.details, label).toBe('object');
    if (op.method !== 'GET') expect(await eventCount(), `${label}: a refused write recorded an event`).toBe(before);
  }
  return reply;
}

beforeAll(async () => {
  h = await startHarness();
  seeded = await seedExampleRecords(h);
}, 120_000);
afterAll(() => h?.close());

describe('hostile input on every route', () => {
  it('covers every operation with a request example', () => {
    expect(requestExamples.length).toBeGreaterThan(40);
  });

  for (const { op } of requestExamples) {
    it(`${op.id}: a hostile value in any body field is answered cleanly`, async () => {
      const { path, body } = await exampleRequest(h, seeded, op);
      const statuses = new Set<number>();
      for (const value of HOSTILE_VALUES)
        for (const variant of withOneFieldReplaced(body, value)) {
          const shown = JSON.stringify(value)?.slice(0, 40);
          statuses.add((await sendHostile(op, path, variant.body, `${variant.field}=${shown}`)).status);
        }
      // Something was refused: the sweep reached the checks rather than passing everything.
      expect([...statuses].some((status) => status >= 400)).toBe(true);
    }, 120_000);
  }

  it('refuses hostile path parameters on every operation', async () => {
    let sent = 0;
    for (const op of catalog.filter((candidate) => candidate.path.includes('{'))) {
      const { params, body: example } = await exampleRequest(h, seeded, op);
      const body = example ?? (op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
      for (const name of Object.keys(params))
        for (const text of HOSTILE_TEXT) {
          const { path } = await exampleRequest(h, seeded, op, { [name]: text });
          const reply = await sendHostile(op, path, body, `path ${name}=${text.slice(0, 40)}`);
          expect(reply.status, `${op.id} path ${name}=${text.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
          sent++;
        }
    }
    expect(sent).toBeGreaterThan(500);
  }, 300_000);

  it('answers hostile query parameters of every read without a 5xx', async () => {
    let sent = 0;
    for (const op of catalog.filter((candidate) => candidate.method === 'GET' && candidate.query)) {
      const { path } = await exampleRequest(h, seeded, op);
      for (const name of Object.keys((op.query as Json).properties ?? {}))
        for (const text of [...HOSTILE_TEXT, `a&${name}=b`]) {
          await sendHostile(op, `${path}?${name}=${text}`, undefined, `query ${name}=${text.slice(0, 40)}`);
          sent++;
        }
    }
    expect(sent).toBeGreaterThan(500);
  }, 300_000);
});

/**
 * The hostile values of the MCP sweep: one of each kind above, but the lone surrogate, which
 * the body parser refuses for the whole message (INVALID_JSON, test/trust/http-utf8.test.ts).
 */
const HOSTILE_ARGUMENTS: unknown[] = [
  null,
  -(2 ** 63),
  1e308,
  'a\u0000b',
  '9999-12-31T25:61:00Z',
  'x'.repeat(100_000),
  Array<string>(5_000).fill('a'),
  { nested: [{}] },
];

/** A tool's arguments as an agent sends them: path parameters, query and body fields, side by side. */
async function toolArguments(op: Operation): Promise<Json> {
  const { params, body } = await exampleRequest(h, seeded, op);
  const query = Object.fromEntries(
    Object.keys((op.query as Json | undefined)?.properties ?? {}).map((name) => [name, undefined]),
  );
  return { ...query, ...params, ...((body ?? {}) as Json) };
}

describe('hostile tool arguments over MCP', () => {
  it('answers every tool with a result or a refusal naming its code', async () => {
    let sent = 0;
    let id = 0;
    for (const op of catalog) {
      const base = await toolArguments(op);
      for (const name of Object.keys(base))
        for (const value of HOSTILE_ARGUMENTS) {
          const args = JSON.stringify({ ...base, [name]: value });
          const before = op.method === 'GET' ? 0 : await eventCount();
          const call = `{"jsonrpc":"2.0","id":${++id},"method":"tools/call","params":{"name":"${op.id}","arguments":${args}}}`;
          const reply = await postMcp(h, call, TOKENS.admin, '/api/mcp?toolsets=all');
          const label = `${op.id} ${name}=${JSON.stringify(value)?.slice(0, 40)} → ${JSON.stringify(reply.body)?.slice(0, 300)}`;
          expect(reply.status, label).toBe(200);
          expect(reply.body.error, label).toBeUndefined();
          const result = reply.body.result as { isError?: boolean; structuredContent?: Json };
          if (result.isError) {
            expect(result.structuredContent?.code, label).toEqual(expect.any(String));
            expect(result.structuredContent?.code, label).not.toBe('INTERNAL_ERROR');
            if (op.method !== 'GET')
              expect(await eventCount(), `${label}: a refused call recorded an event`).toBe(before);
          }
          sent++;
        }
    }
    expect(sent).toBeGreaterThan(1_000);
  }, 300_000);
});
