import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type AppConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { buildApp } from '../../src/server/app.js';
import { ClaimHolder } from '../../src/modules/idempotency/holder.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { assertConforms } from './conformance.js';
import { closeTestDatabase, openTestDatabase } from './database.js';

/** Deterministic, valid secrets so fixtures can name tokens and tests can use them. */
export const patFor = (name: string): string => `svc_pat_${createHash('sha256').update(`pat:${name}`).digest('hex')}`;
export const oatFor = (name: string): string => `svc_oat_${createHash('sha256').update(`oat:${name}`).digest('hex')}`;

/**
 * The WWW-Authenticate of a 401 from an API door: it names the door's protected-resource
 * metadata (RFC 9728) at the public URL, which for an app on the default configuration that
 * is not listening is http://127.0.0.1:8080.
 */
export const challengeOf = (door: '/api/external' | '/api/mcp', origin = 'http://127.0.0.1:8080'): string =>
  `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource${door}"`;

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
}

export interface CallOptions {
  /** A token secret, sent as Authorization: Bearer. */
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Harness {
  app: FastifyInstance;
  database: Database;
  /** The app's holder of idempotency claims, for a test that registers operations of its own. */
  holder: ClaimHolder;
  /** Applies one more workspace file (YAML text or object) with the `wsx apply` code. */
  apply: (file: object | string) => ReturnType<typeof applyWorkspaceFile>;
  call: <T = any>(method: string, url: string, options?: CallOptions) => Promise<Reply<T>>;
  close: () => Promise<void>;
}

/**
 * Sends requests to the app in-process; every answer of a catalog route is checked against
 * the OpenAPI document (support/conformance.ts) before the test sees it.
 */
export function callerOf(app: FastifyInstance): Harness['call'] {
  return async (method: string, url: string, options: CallOptions = {}): Promise<Reply> => {
    const response = await app.inject({
      method: method as never,
      url,
      headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
      ...(options.body !== undefined ? { payload: options.body as never } : {}),
    });
    const text = response.body;
    const body = text ? JSON.parse(text) : undefined;
    assertConforms(method, url, response.statusCode, body);
    return { status: response.statusCode, body, headers: response.headers };
  };
}

/**
 * An app on a fresh test database (SQLite in memory, or PostgreSQL with TEST_DATABASE_URL),
 * seeded with workspace files. Rate limiting (per credential, and of failed
 * authentications) is off unless a test turns it on.
 */
export async function startHarness(
  files: Array<object | string> = [],
  config: Partial<AppConfig> = {},
): Promise<Harness> {
  const database = await openTestDatabase();
  for (const file of files) await applyWorkspaceFile(database.db, file);
  const holder = new ClaimHolder(database.db);
  const app = await buildApp({
    database,
    config: { ...loadConfig({}), rateLimitPerMinute: 0, authFailureLimit: 0, ...config },
    holder,
  });
  return {
    app,
    database,
    holder,
    apply: (file) => applyWorkspaceFile(database.db, file),
    call: callerOf(app),
    close: async () => {
      await app.close();
      await closeTestDatabase(database);
    },
  };
}
