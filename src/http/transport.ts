import { createServer, maxHeaderSize, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { AppConfig } from '../config.js';
import { ApiError } from '../core/errors.js';

/**
 * What the HTTP server does below the routes: how long it waits for a client, what it
 * answers when Node itself refuses a request (parser errors, oversized headers, timeouts),
 * and what a request gets while the server shuts down. Every such answer is in the
 * catalog's `{ error, code, details, suggestion }` shape, like any route's.
 */

/**
 * Node checks request and headers deadlines on a timer (every 30 s by default), so a
 * connection could outlive its deadline by that much; checking a few times per deadline
 * keeps the limits close to what is configured, at the cost of a scan of open connections.
 */
const checkingInterval = (config: AppConfig): number =>
  Math.max(10, Math.min(1_000, Math.floor(Math.min(config.requestTimeoutMs, config.headersTimeoutMs) / 4)));

/** Seconds a client should wait before retrying a request refused during shutdown. */
const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

/** The HTTP server below Fastify, and its handler of the errors Node's parser reports. */
export interface Transport {
  serverFactory: FastifyServerFactory<Server>;
  clientErrorHandler: (this: FastifyInstance, error: Error & { code?: string }, socket: Socket) => void;
}

/**
 * Fastify's `serverFactory` and `clientErrorHandler`. The server remembers each connection's
 * latest response, so that a client error on it never writes into a response already under
 * way (begun and not finished).
 *
 * The deadlines: without them, a client that sends headers slowly (slowloris) or a body
 * shorter than its Content-Length holds a connection for Node's 300 s default, and an idle
 * keep-alive connection for Fastify's 72 s.
 */
export function transport(config: AppConfig): Transport {
  const lastResponse = new WeakMap<Socket, ServerResponse>();
  const serverFactory: FastifyServerFactory<Server> = (handler) => {
    const server = createServer(
      {
        requestTimeout: config.requestTimeoutMs,
        headersTimeout: config.headersTimeoutMs,
        connectionsCheckingInterval: checkingInterval(config),
      },
      (request, response) => {
        lastResponse.set(request.socket, response);
        handler(request, response);
      },
    );
    server.keepAliveTimeout = config.keepAliveTimeoutMs;
    return server;
  };
  return { serverFactory, clientErrorHandler: clientErrorHandler(config, lastResponse) };
}

function clientErrorToApiError(error: Error & { code?: string }, config: AppConfig): ApiError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', {
        requestTimeoutMs: config.requestTimeoutMs,
        headersTimeoutMs: config.headersTimeoutMs,
      });
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('HEADERS_TOO_LARGE', { limitBytes: maxHeaderSize });
    default:
      return new ApiError(
        'VALIDATION_FAILED',
        { field: 'request', reason: error.code ?? 'malformed' },
        { message: 'The request is not valid HTTP.' },
      );
  }
}

/** A whole HTTP/1.1 response, written straight to the socket: no request object exists for it. */
function rawResponse(error: ApiError): string {
  const body = JSON.stringify(error.toBody());
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Whether a response has begun and not yet finished: a write now would land inside it. */
const answering = (response: ServerResponse | undefined): boolean =>
  response !== undefined && response.headersSent && !response.writableFinished;

/**
 * Fastify's `clientErrorHandler`: Node's parser errors and timeouts, answered in the error
 * shape and then the connection closed. Nothing is written when a response has already
 * started on the socket (it would corrupt it); the connection is only closed then.
 */
function clientErrorHandler(config: AppConfig, lastResponse: WeakMap<Socket, ServerResponse>) {
  return function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    this.log.debug({ err: error }, 'client error');
    if (!socket.writable || answering(lastResponse.get(socket))) {
      socket.destroy();
      return;
    }
    // Closed once the answer is flushed, whether or not the client closes its side.
    socket.end(rawResponse(clientErrorToApiError(error, config)), () => socket.destroy());
  };
}

/**
 * While the server drains (after close() began), a request that still arrives on an open
 * keep-alive connection is answered 503 SERVER_SHUTTING_DOWN with Retry-After, before any
 * credential or database work. Replaces Fastify's `return503OnClosing`, whose body is not
 * in the error shape. Register before every other onRequest hook.
 */
export function answerRequestsWhileDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!draining) return done();
    reply.header('Connection', 'close');
    done(
      new ApiError('SERVER_SHUTTING_DOWN', {}, { headers: { 'Retry-After': String(SHUTDOWN_RETRY_AFTER_SECONDS) } }),
    );
  });
}
