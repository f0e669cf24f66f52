import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * The HTTP transport under a real listening server, spoken to over raw sockets: what Node
 * itself answers (parser errors, timeouts, shutdown) must be in the catalog's error shape,
 * and no connection may be held open forever. Timeouts are configured small so the tests
 * are quick; every test waits for the outcome (an answer, a close), never for a duration.
 */

const SMALL = { requestTimeoutMs: 400, headersTimeoutMs: 300, keepAliveTimeoutMs: 200 };

let h: Harness;
let port: number;

beforeAll(async () => {
  h = await startHarness([ACME], SMALL);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as AddressInfo).port;
});
afterAll(() => h.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits everything a socket received into its HTTP responses (each with a Content-Length). */
function parseResponses(raw: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`incomplete response: ${rest.toString('latin1')}`);
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const length = Number(headers['content-length'] ?? 0);
    responses.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: rest.subarray(end + 4, end + 4 + length).toString('utf8'),
    });
    rest = rest.subarray(end + 4 + length);
  }
  return responses;
}

/** A raw connection: write to it, and learn everything it received once the server closed it. */
function connect(): Promise<{ socket: net.Socket; closed: Promise<Buffer> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const closed = new Promise<Buffer>((done) => {
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('close', () => done(Buffer.concat(chunks)));
    });
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

function expectErrorShape(response: RawResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'error', 'suggestion']);
  expect(body).toMatchObject({
    code,
    error: expect.any(String),
    suggestion: expect.any(String),
    details: expect.any(Object),
  });
  return body;
}

const projectNames = async () =>
  (
    (await h.call('GET', '/api/external/projects?limit=200', { token: TOKENS.admin })).body.projects as Array<{
      name: string;
    }>
  ).map((p) => p.name);

describe('timeouts', () => {
  it('uses 30 s for a request, 10 s for headers and 5 s for idle keep-alive by default, configurable by env', () => {
    expect(loadConfig({})).toMatchObject({
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
    });
    expect(
      loadConfig({
        WSX_REQUEST_TIMEOUT_MS: '60000',
        WSX_HEADERS_TIMEOUT_MS: '20000',
        WSX_KEEP_ALIVE_TIMEOUT_MS: '1000',
      }),
    ).toMatchObject({ requestTimeoutMs: 60_000, headersTimeoutMs: 20_000, keepAliveTimeoutMs: 1_000 });
    // A request timeout below the default headers timeout takes the headers timeout down with it.
    expect(loadConfig({ WSX_REQUEST_TIMEOUT_MS: '5000' })).toMatchObject({
      requestTimeoutMs: 5_000,
      headersTimeoutMs: 5_000,
    });
    for (const env of [
      { WSX_REQUEST_TIMEOUT_MS: '0' },
      { WSX_HEADERS_TIMEOUT_MS: 'soon' },
      { WSX_KEEP_ALIVE_TIMEOUT_MS: '-1' },
      { WSX_REQUEST_TIMEOUT_MS: '1000', WSX_HEADERS_TIMEOUT_MS: '2000' },
    ]) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(/WSX_/);
    }
  });

  it('gives the listening server the configured timeouts', () => {
    expect(h.app.server.requestTimeout).toBe(SMALL.requestTimeoutMs);
    expect(h.app.server.headersTimeout).toBe(SMALL.headersTimeoutMs);
    expect(h.app.server.keepAliveTimeout).toBe(SMALL.keepAliveTimeoutMs);
  });

  it('answers 408 REQUEST_TIMEOUT and closes a connection whose body never matches its Content-Length', async () => {
    const { socket, closed } = await connect();
    socket.write(
      [
        'POST /api/external/projects HTTP/1.1',
        'Host: wsx.test',
        `Authorization: Bearer ${TOKENS.admin}`,
        'Content-Type: application/json',
        'Content-Length: 100',
        '',
        '{"name":"Never finished',
      ].join('\r\n'),
    );
    const responses = parseResponses(await closed);
    expect(responses).toHaveLength(1);
    expectErrorShape(responses[0], 408, 'REQUEST_TIMEOUT');
    expect(await projectNames()).not.toContain('Never finished');
  });

  it('answers 408 and closes a connection that trickles its headers (slowloris)', async () => {
    const { socket, closed } = await connect();
    socket.write('GET /healthz HTTP/1.1\r\nHost: wsx.test\r\n');
    // One more header line now and then: trickling must not keep the connection alive.
    const trickle = setInterval(() => socket.write(`X-Trickle-${Date.now()}: 1\r\n`), 50);
    try {
      const responses = parseResponses(await closed);
      expect(responses).toHaveLength(1);
      expectErrorShape(responses[0], 408, 'REQUEST_TIMEOUT');
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes an idle keep-alive connection after answering it', async () => {
    const { socket, closed } = await connect();
    socket.write('GET /healthz HTTP/1.1\r\nHost: wsx.test\r\nConnection: keep-alive\r\n\r\n');
    const responses = parseResponses(await closed);
    expect(responses.map((r) => r.status)).toEqual([200]);
  });
});

describe('Node parser errors', () => {
  it('answers a malformed request with 400 VALIDATION_FAILED in the error shape', async () => {
    for (const request of [
      'GET /healthz HTTP/1.1\r\nHost: wsx.test\r\nContent-Length: abc\r\n\r\n',
      'NOT HTTP AT ALL\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: wsx.test\r\nBad Header Name: x\r\n\r\n',
    ]) {
      const { socket, closed } = await connect();
      socket.write(request);
      const responses = parseResponses(await closed);
      expect(responses, request).toHaveLength(1);
      const body = expectErrorShape(responses[0], 400, 'VALIDATION_FAILED');
      expect(body.details).toMatchObject({ field: 'request' });
    }
  });

  it('answers a malformed request that follows an answered one on a keep-alive connection', async () => {
    const { socket, closed } = await connect();
    const firstAnswered = new Promise((resolve) => socket.once('data', resolve));
    socket.write('GET /healthz HTTP/1.1\r\nHost: wsx.test\r\nConnection: keep-alive\r\n\r\n');
    // The client has the whole first answer, so the server's response to it has finished.
    await firstAnswered;
    socket.write('NOT HTTP AT ALL\r\n\r\n');
    const responses = parseResponses(await closed);
    expect(responses.map((r) => r.status)).toEqual([200, 400]);
    expectErrorShape(responses[1], 400, 'VALIDATION_FAILED');
  });

  it('answers headers over the size limit with 431 HEADERS_TOO_LARGE', async () => {
    const { socket, closed } = await connect();
    socket.write(`GET /healthz HTTP/1.1\r\nHost: wsx.test\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const responses = parseResponses(await closed);
    expect(responses).toHaveLength(1);
    expectErrorShape(responses[0], 431, 'HEADERS_TOO_LARGE');
  });
});

describe('shutdown', () => {
  it('answers a request that arrives while the server drains with 503 SERVER_SHUTTING_DOWN and Retry-After', async () => {
    const draining = await startHarness([ACME], SMALL);
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = () => undefined as void;
    const inFlight = new Promise<void>((resolve) => {
      started = resolve;
    });
    draining.app.get('/slow-for-test', async () => {
      started();
      await gate;
      return { done: true };
    });
    let closingBegan = () => undefined as void;
    const closingStarted = new Promise<void>((resolve) => {
      closingBegan = resolve;
    });
    draining.app.addHook('preClose', (done) => {
      closingBegan();
      done();
    });
    await draining.app.listen({ port: 0, host: '127.0.0.1' });
    const drainingPort = (draining.app.server.address() as AddressInfo).port;

    const socket = net.connect(drainingPort, '127.0.0.1');
    const chunks: Buffer[] = [];
    const closed = new Promise<Buffer>((resolve) => {
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('close', () => resolve(Buffer.concat(chunks)));
    });
    socket.write('GET /slow-for-test HTTP/1.1\r\nHost: wsx.test\r\n\r\n');
    await inFlight;
    const stopped = draining.close();
    await closingStarted;
    // The same keep-alive connection sends another request while the server drains.
    socket.write(
      `GET /api/external/projects HTTP/1.1\r\nHost: wsx.test\r\nAuthorization: Bearer ${TOKENS.admin}\r\n\r\n`,
    );
    release();
    const responses = parseResponses(await closed);
    await stopped;
    expect(responses.map((r) => r.status)).toEqual([200, 503]);
    expect(JSON.parse(responses[0].body)).toEqual({ done: true });
    expectErrorShape(responses[1], 503, 'SERVER_SHUTTING_DOWN');
    expect(Number(responses[1].headers['retry-after'])).toBeGreaterThan(0);
    expect(responses[1].headers.connection).toBe('close');
  });
});
