import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { requestLogger } from '../../src/observability/request-logger.js';

/**
 * Each request's logger (src/observability/request-logger.ts) makes its pino child, bound to
 * the request id, only when the request writes a line.
 */
function parentAt(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  // Fastify's logger, pino, as the server has it.
  const parent: FastifyBaseLogger = Fastify({ logger: { level, stream } }).log;
  return { parent, lines, child: vi.spyOn(parent, 'child') };
}

describe('a request’s logger', () => {
  it('makes no child for lines its level does not write', () => {
    const { parent, lines, child } = parentAt('warn');
    const logger = requestLogger(parent, { requestId: 'r-1' }, {});

    logger.info({ status: 200 }, 'request');
    logger.debug('detail');

    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    expect(logger.level).toBe('warn');
  });

  it('writes the lines its level does, bound to the request id, through one child', () => {
    const { parent, lines, child } = parentAt('warn');
    const logger = requestLogger(parent, { requestId: 'r-2' }, {});

    logger.error({ status: 500 }, 'request failed');
    logger.warn('database fault %s', 'busy');
    logger.info('not written');

    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toMatchObject([
      { level: 50, requestId: 'r-2', status: 500, msg: 'request failed' },
      { level: 40, requestId: 'r-2', msg: 'database fault busy' },
    ]);
  });

  it('takes a level of its own, and hands its bindings to a child of its own', () => {
    const { parent, lines } = parentAt('warn');
    const logger = requestLogger(parent, { requestId: 'r-3' }, {});

    logger.level = 'info';
    logger.child({ tool: 'list_issues' }).info('called');

    expect(logger.level).toBe('info');
    expect(lines).toMatchObject([{ level: 30, requestId: 'r-3', tool: 'list_issues', msg: 'called' }]);
  });

  it('is pino’s own child when the route sets a level', () => {
    const { parent, child } = parentAt('warn');
    requestLogger(parent, { requestId: 'r-4' }, { level: 'debug' });
    expect(child).toHaveBeenCalledWith({ requestId: 'r-4' }, { level: 'debug' });
  });
});
