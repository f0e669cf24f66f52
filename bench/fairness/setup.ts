import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../floor/processes.js';

export type Store = 'sqlite' | 'postgres';

const PG_SERVER = process.env.PG_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PG_DATABASE = 'wsx_fairness';

const psql = (statement: string) => run('psql', [PG_SERVER, '-q', '-v', 'ON_ERROR_STOP=1', '-c', statement]);

/** A new, empty store in `dir` (SQLite) or on PG_SERVER_URL: its DATABASE_URL and how to remove it. */
export async function freshStore(store: Store, dir: string): Promise<{ url: string; drop: () => Promise<void> }> {
  // The SQLite file lives in `dir`, which the caller removes.
  if (store === 'sqlite') return { url: `sqlite:${join(dir, 'wsx.sqlite')}`, drop: async () => undefined };
  const drop = async () => void (await psql(`drop database if exists ${PG_DATABASE} with (force)`));
  await drop();
  await psql(`create database ${PG_DATABASE}`);
  return { url: `${PG_SERVER.replace(/\/[^/]*$/, '')}/${PG_DATABASE}`, drop };
}

/** The two callers' tokens: both may write to the one project, neither shares the other's budget. */
const WORKSPACE = {
  workspace: { slug: 'fairness', name: 'Fairness' },
  users: [{ handle: 'ada', name: 'Ada', email: 'ada@fairness.test' }],
  teams: [{ key: 'ENG', name: 'Engineering', default: true, members: ['ada'] }],
  projects: [{ team: 'ENG', key: 'CORE', name: 'Core' }],
  tokens: [
    { name: 'bulk', projects: ['ENG/CORE'] },
    { name: 'steady', projects: ['ENG/CORE'] },
  ],
};

export interface Seeded {
  projectId: string;
  /** Caller A: the bulk writer. */
  bulkToken: string;
  /** Caller B: the single creates whose latency is measured. */
  steadyToken: string;
}

/**
 * Seeds the workspace as an operator would, with `wsx apply` on the built CLI (it migrates
 * the store first), which also generates the tokens' secrets and prints them once.
 */
export async function seedWorkspace(wsx: string, databaseUrl: string, dir: string): Promise<Seeded> {
  const file = join(dir, 'workspace.json');
  writeFileSync(file, JSON.stringify(WORKSPACE));
  const output = await run('node', [wsx, 'apply', '-f', file, '--json'], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  const result = JSON.parse(output);
  return { projectId: result.projects['ENG/CORE'], bulkToken: result.tokens.bulk, steadyToken: result.tokens.steady };
}

/**
 * The per-credential budget the server enforces, per minute, from the RateLimit headers of
 * one discovery request (it costs the caller one request of that budget).
 */
export async function rateLimitOf(url: string, token: string): Promise<number> {
  const response = await fetch(`${url}/api/external`, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  const limit = Number(response.headers.get('ratelimit-limit'));
  if (!(limit > 0)) throw new Error('The server sends no ratelimit-limit header: is WSX_RATE_LIMIT=0 set?');
  return limit;
}

/** The most items POST /issues/bulk takes, as the server's OpenAPI document says (maxItems). */
export async function bulkMaxItems(url: string): Promise<number> {
  const document = await (await fetch(`${url}/api/external/openapi.json`)).json();
  let schema = document.paths['/api/external/issues/bulk'].post.requestBody.content['application/json'].schema;
  if (schema.$ref) schema = document.components.schemas[schema.$ref.split('/').pop()];
  return schema.properties.issues.maxItems;
}
