import { describe, expect, it } from 'vitest';
import { WorkspaceLines } from '../src/db/postgres/workspace-lines.js';

/**
 * A PostgreSQL store queues each workspace's writes in the process (src/db/postgres/
 * workspace-lines.ts), so only the write whose turn it is holds a connection and the
 * workspace's write order. These tests drive the queue with writes they hold open.
 */

/** A write that runs until released, recording when it starts. */
function heldWrite(log: string[], name: string) {
  let release!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    release = () => resolve(name);
    fail = reject;
  });
  return {
    work: () => {
      log.push(`start ${name}`);
      return done;
    },
    release,
    fail,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the writes of one workspace on PostgreSQL', () => {
  it('run one at a time, in the order they arrive', async () => {
    const lines = new WorkspaceLines();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldWrite(log, name));
    const results = [lines.run('ws', a.work), lines.run('ws', b.work), lines.run('ws', c.work)];
    await settle();
    expect(log).toEqual(['start a']);
    a.release();
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    b.release();
    c.release();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'start b', 'start c']);
  });

  it('let the next write run after one that fails, which alone answers its failure', async () => {
    const lines = new WorkspaceLines();
    const log: string[] = [];
    const [a, b] = ['a', 'b'].map((name) => heldWrite(log, name));
    const failed = lines.run('ws', a.work);
    const next = lines.run('ws', b.work);
    await settle();
    a.fail(new Error('refused'));
    await expect(failed).rejects.toThrow('refused');
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    b.release();
    expect(await next).toBe('b');
  });

  it('do not hold up another workspace’s writes', async () => {
    const lines = new WorkspaceLines();
    const log: string[] = [];
    const [a, b] = ['a', 'b'].map((name) => heldWrite(log, name));
    const first = lines.run('ws-1', a.work);
    const other = lines.run('ws-2', b.work);
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    b.release();
    expect(await other).toBe('b');
    a.release();
    expect(await first).toBe('a');
  });
});
