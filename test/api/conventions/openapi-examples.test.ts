import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/operations/define.js';
import { openApiDocument } from '../../support/conformance.js';
import {
  exampleRequest,
  requestExamples,
  seedExampleRecords,
  type ExampleRecords,
} from '../../support/example-requests.js';
import { TOKENS } from '../../support/fixtures.js';
import { startHarness, type Harness } from '../../support/harness.js';

/**
 * Every request example of the OpenAPI document, sent to a seeded server, answers the
 * documented success status: what /docs' try-it and a generator's example phase send works.
 * The records the examples name are seeded first, and their placeholders replaced
 * (support/example-requests.ts). Examples are sent in document order, so a create runs
 * before the update of the same kind, as a reader of the reference would try them. Runs on
 * SQLite, and on PostgreSQL with TEST_DATABASE_URL.
 */

type Json = Record<string, any>;
const doc = openApiDocument as unknown as Json;
const API = '/api/external';

/**
 * Operations with a request example that are not sent, each with why. Empty: every example
 * is replayed, the webhook examples too. A receiver whose name does not resolve is accepted
 * and so is one on a public address, so hooks.example.com is taken either way; the harness
 * runs no delivery worker, so nothing is sent to it.
 */
const NOT_REPLAYED: Record<string, string> = {};

let h: Harness;
let seeded: ExampleRecords;
const admin = { token: TOKENS.admin };

const successStatus = (op: Operation): number =>
  op.successStatus ?? (op.method === 'POST' ? 201 : op.method === 'DELETE' ? 204 : 200);

beforeAll(async () => {
  h = await startHarness();
  seeded = await seedExampleRecords(h);
}, 120_000);
afterAll(() => h?.close());

describe('the request examples of the OpenAPI document', () => {
  it('are replayed for every operation with one, but for the few listed with a reason', () => {
    expect(requestExamples.length).toBeGreaterThan(40);
    const ids = requestExamples.map(({ op }) => op.id);
    for (const [id, reason] of Object.entries(NOT_REPLAYED)) {
      expect(ids, `${id} is listed as not replayed but has no example`).toContain(id);
      expect(reason.length).toBeGreaterThan(20);
    }
  });

  for (const { op } of requestExamples.filter(({ op }) => !(op.id in NOT_REPLAYED))) {
    it(`${op.id}: ${op.method} ${op.path} answers ${successStatus(op)}`, async () => {
      const { path, body } = await exampleRequest(h, seeded, op);
      const reply = await h.call(op.method, path, { ...admin, body });
      expect(reply.status, `${JSON.stringify(body)} → ${JSON.stringify(reply.body)}`).toBe(successStatus(op));
    });
  }
});

/** Every string of up to `length` tokens, in a fixed order. */
function combinations(tokens: string[], length: number): string[] {
  let all = [''];
  const out = [''];
  for (let i = 0; i < length; i++) {
    all = all.flatMap((prefix) => tokens.map((token) => prefix + token));
    out.push(...all);
  }
  return out;
}

describe("the document's patterns are the server's checks", () => {
  const parameterOf = (path: string, method: string, name: string): Json =>
    doc.paths[path][method].parameters.find((parameter: Json) => parameter.name === name).schema;

  it('takes exactly the If-Match values the pattern allows', async () => {
    const schema = parameterOf('/api/external/issues/{issueId}', 'patch', 'If-Match');
    const pattern = new RegExp(schema.pattern, 'u');
    expect(schema.maxLength).toBe(2048);
    const values = [
      ...combinations(['"7"', 'W/"7-x"', ',', ' ', '*', 'x', '"'], 3),
      Array(50).fill('"1"').join(','),
      Array(51).fill('"1"').join(','),
      `*,${Array(49).fill('x').join(',')}`,
      `*,${Array(50).fill('x').join(',')}`,
    ];
    for (const value of values) {
      const reply = await h.call('PATCH', `${API}/issues/${seeded.target.issueId}`, {
        ...admin,
        body: { priority: 'low' },
        headers: { 'if-match': value },
      });
      const refused = reply.status === 400 && reply.body.details?.field === 'If-Match';
      expect(refused, `If-Match: ${value} → ${reply.status}`).toBe(!pattern.test(value));
    }
  }, 60_000);

  it('takes exactly the fields= values the pattern allows', async () => {
    const schema = parameterOf('/api/external/issues', 'get', 'fields');
    const pattern = new RegExp(schema.pattern, 'u');
    const values = [
      ...combinations(['title', 'status', 'statusKey', ',', ' ', '0', 'x'], 2),
      'issueKey, title ,,status',
      ' title , ',
      'title title',
      'project,projectId,projectKey',
    ];
    for (const value of values) {
      const reply = await h.call('GET', `${API}/issues?fields=${encodeURIComponent(value)}&limit=1`, admin);
      expect(reply.status, `fields=${value} → ${JSON.stringify(reply.body).slice(0, 200)}`).toBe(
        pattern.test(value) ? 200 : 400,
      );
    }
  }, 60_000);
});
