import { Agent, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { serverFactory } from '../src/http/transport.js';
import { TurnPacer } from '../src/http/turn-pacer.js';

/** Resolves after the check phase of this turn: the immediates queued before it have run. */
const afterImmediates = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A pacer on a clock the test moves: every started request costs `costMs`. */
function pacedRecorder(budgetMs: number, costMs: number | ((name: string) => number)) {
  let clock = 0;
  const started: string[] = [];
  const pacer = new TurnPacer(budgetMs, 100, () => clock);
  const listener = pacer.pace((request) => {
    const name = request as unknown as string;
    started.push(name);
    clock += typeof costMs === 'number' ? costMs : costMs(name);
  });
  const arrive = (...names: string[]) => {
    for (const name of names) listener(name as unknown as IncomingMessage, {} as ServerResponse);
  };
  return { pacer, started, arrive, advance: (ms: number) => (clock += ms) };
}

describe('turn pacer', () => {
  it('starts every request at once while no connection arrived lately, however long the turn', () => {
    const { started, arrive, pacer } = pacedRecorder(4, 10);
    arrive('a', 'b', 'c');
    expect(started).toEqual(['a', 'b', 'c']);
    expect(pacer.queued).toBe(0);
  });

  it('after a connection, starts what fits the turn budget and the rest on later turns, oldest first', async () => {
    const { started, arrive, pacer } = pacedRecorder(4, 3);
    pacer.connectionAccepted();
    arrive('a', 'b', 'c', 'd', 'e');
    // a opens the turn (0 ms spent), b starts at 3 ms, c arrives at 6 ms: over budget.
    expect(started).toEqual(['a', 'b']);
    expect(pacer.queued).toBe(3);
    await afterImmediates();
    // The next turn starts c (0 ms of it spent) and d (3 ms); e waits once more.
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    expect(pacer.queued).toBe(1);
    await afterImmediates();
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pacer.queued).toBe(0);
  });

  it('never lets a new request overtake one that waits, even when the turn has budget', async () => {
    const { started, arrive, pacer, advance } = pacedRecorder(4, (name) => (name === 'slow' ? 10 : 0));
    pacer.connectionAccepted();
    arrive('slow', 'queued');
    expect(started).toEqual(['slow']);
    advance(-10); // a fresh turn's worth of budget is left, but 'queued' still waits
    arrive('late');
    expect(started).toEqual(['slow']);
    await afterImmediates();
    expect(started).toEqual(['slow', 'queued', 'late']);
  });

  it('stops pacing once no connection has arrived for the window', async () => {
    const { started, arrive, pacer, advance } = pacedRecorder(4, 10);
    pacer.connectionAccepted();
    arrive('a', 'b');
    expect(started).toEqual(['a']);
    await afterImmediates();
    expect(started).toEqual(['a', 'b']);
    advance(100);
    arrive('c', 'd', 'e');
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('keeps the order of thousands of waiting requests across its queue compaction', async () => {
    const { started, arrive, pacer } = pacedRecorder(4, (name) => (name === '0' ? 5 : 0));
    pacer.connectionAccepted();
    const names = Array.from({ length: 3000 }, (_, i) => String(i));
    arrive(...names);
    expect(started).toEqual(['0']);
    expect(pacer.queued).toBe(2999);
    await afterImmediates();
    expect(started).toEqual(names);
    expect(pacer.queued).toBe(0);
  });
});

describe('paced HTTP server', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('answers requests that waited for a later turn, with their bodies intact', async () => {
    // A zero budget makes every request after the first of a turn wait for a later one.
    const pacer = new TurnPacer(0, 60_000);
    let mostWaiting = 0;
    const echo = (request: IncomingMessage, response: ServerResponse) => {
      mostWaiting = Math.max(mostWaiting, pacer.queued);
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => response.end(`${request.url} ${Buffer.concat(chunks).toString()}`));
    };
    server = serverFactory(loadConfig({}), pacer)(echo, {});
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // Open connections first: a listener accepts one connection per turn, so requests on new
    // connections would arrive one per turn and never wait.
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const post = (i: number) =>
      new Promise<string>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, agent, method: 'POST', path: `/r${i}` }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(`${res.statusCode} ${text}`));
        });
        req.on('error', reject);
        req.end(`body-${i}`);
      });
    await Promise.all(Array.from({ length: 20 }, (_, i) => post(i)));
    mostWaiting = 0;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i)));
    agent.destroy();
    expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => `200 /r${i} body-${i}`));
    expect(mostWaiting).toBeGreaterThan(0);
    expect(pacer.queued).toBe(0);
  });
});
