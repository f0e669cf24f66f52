import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * A request hook whose asynchronous work runs only for the requests `applies` picks; every
 * other request passes at once. Fastify waits for an async hook through a promise and a
 * microtask even when it returns straight away, and every API request passes several hooks
 * that concern a few paths only (OAuth, browser sessions, unknown routes). In the callback
 * form those pass without either. `done` follows `work` as Fastify follows an async hook:
 * on to the next hook when it settles, or to the error handler with what it threw.
 */
export const hookWhen =
  (
    applies: (request: FastifyRequest) => boolean,
    work: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  ) =>
  (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (!applies(request)) return done();
    work(request, reply).then(() => done(), done);
  };
