import { describe, expect, it } from 'vitest';
import { OutageLog } from '../../src/events/outage-log.js';

/** A worker's log during a store outage: one warning when it begins, one line when it ends. */
describe('background worker logging during a database outage', () => {
  const recorder = () => {
    const lines: Array<{ level: string; message: string }> = [];
    const at = (level: string) => (_details: object, message: string) => void lines.push({ level, message });
    return { lines, log: { error: at('error'), warn: at('warn'), info: at('info') } };
  };
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

  it('warns once while the database stays unavailable, and says when it answers again', () => {
    const { lines, log } = recorder();
    const faults = new OutageLog(log, 'webhook dispatcher');
    for (let i = 0; i < 40; i++) faults.failed(refused, 'tick failed');
    faults.succeeded();
    faults.succeeded();
    expect(lines).toEqual([
      { level: 'warn', message: 'webhook dispatcher: the database is unavailable; retrying until it answers' },
      { level: 'info', message: 'webhook dispatcher: the database answers again' },
    ]);
  });

  it('logs every other failure as an error', () => {
    const { lines, log } = recorder();
    const faults = new OutageLog(log, 'webhook dispatcher');
    faults.failed(new TypeError('a bug'), 'tick failed');
    faults.failed(new TypeError('a bug'), 'tick failed');
    expect(lines).toEqual([
      { level: 'error', message: 'tick failed' },
      { level: 'error', message: 'tick failed' },
    ]);
  });
});
