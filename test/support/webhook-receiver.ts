import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type AppConfig } from '../../src/config.js';
import { registerWorkers } from '../../src/server/workers.js';
import { eventViolation } from './conformance.js';
import { startHarness, type Harness } from './harness.js';

/**
 * A real local webhook receiver (127.0.0.1, random port) that records every request. Every
 * event body it receives is checked against the document's `WebhookEvent` schema, and
 * `waitFor` fails on one that does not match, so the documented events cannot drift either.
 */

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
}

export interface Receiver {
  url: (path?: string) => string;
  received: ReceivedWebhook[];
  /** The status to answer the n-th request (1-based) of a path; 200 unless set. */
  respond: (answer: (path: string, n: number) => number) => void;
  /** Resolves with the requests of `path` once `count` of them arrived (fails after 15 s). */
  waitFor: (path: string, count?: number) => Promise<ReceivedWebhook[]>;
  close: () => Promise<void>;
}

const flatHeaders = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
  );

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const problems: string[] = [];
  const counts = new Map<string, number>();
  let answer: (path: string, n: number) => number = () => 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const json = JSON.parse(body);
      const problem = eventViolation(json);
      if (problem) problems.push(`${path}: ${problem}`);
      received.push({ path, headers: flatHeaders(req.headers), body, json });
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      res.statusCode = answer(path, n);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const of = (path: string) => received.filter((r) => r.path === path);
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    respond: (next) => {
      answer = next;
    },
    waitFor: async (path, count = 1) => {
      const deadline = Date.now() + 15_000;
      while (of(path).length < count) {
        if (problems.length) throw new Error(problems.join('\n'));
        if (Date.now() > deadline) throw new Error(`expected ${count} webhook(s) at ${path}, got ${of(path).length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (problems.length) throw new Error(problems.join('\n'));
      return of(path);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Test configuration for webhook delivery: local receivers allowed, fast retries. */
export const webhookTestConfig = (overrides: Partial<AppConfig> = {}): Partial<AppConfig> => ({
  webhookAllowPrivate: true,
  webhookRetryBaseMs: 30,
  webhookMaxAttempts: 3,
  ...overrides,
});

/** A test harness whose app runs the webhook dispatcher. */
export async function startWorkerHarness(files: Array<object | string>, config: Partial<AppConfig>): Promise<Harness> {
  const harness = await startHarness(files, config);
  registerWorkers(harness.app, harness.database, { ...loadConfig({}), rateLimitPerMinute: 0, ...config });
  return harness;
}
