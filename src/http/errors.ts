import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { databaseApiError, describeDatabaseError } from '../db/errors.js';

/** Maps Fastify's own transport errors to catalog codes; anything unknown is INTERNAL_ERROR. */
function toApiError(error: FastifyError | Error, request: FastifyRequest): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const code = (error as FastifyError).code;
  switch (code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', { contentType: request.headers['content-type'] ?? null });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(
        'VALIDATION_FAILED',
        { field: 'Content-Length' },
        { message: 'The request body does not match its Content-Length.' },
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', { limitBytes: 1_048_576 });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('INVALID_JSON', {});
  }
  if (error instanceof SyntaxError) return new ApiError('INVALID_JSON', {});
  return undefined;
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.code === 'UNAUTHORIZED') {
    // RFC 9728 §5.1: the API doors name their protected-resource metadata, where an OAuth
    // client discovers how to obtain a token (src/http/oauth.ts).
    const metadata = reply.server.resourceMetadataUrl?.(reply.request);
    reply.header('WWW-Authenticate', metadata ? `Bearer resource_metadata="${metadata}"` : 'Bearer');
  }
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toBody());
}

/** The one error renderer: `{ error, code, details, suggestion }`, never a stack or SQL. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError) return sendError(reply, apiError);
    // The store is down or full: 503 / 507 with Retry-After, logged as one line, not a bug.
    const storeError = databaseApiError(error);
    if (storeError) {
      request.log.warn({ code: storeError.code, cause: describeDatabaseError(error) }, 'database fault');
      return sendError(reply, storeError);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, new ApiError('INTERNAL_ERROR', {}));
  });
}

/**
 * Fastify's `frameworkErrors` option: failures raised while matching the URL, before any
 * hook (a malformed percent-encoding, an over-long path parameter), in the catalog's shape.
 */
export function renderUrlError(_error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  sendError(
    reply,
    new ApiError('VALIDATION_FAILED', { field: 'path' }, { message: 'The request path is not a valid URL.' }),
  );
}

/**
 * Unknown routes answer 404 ROUTE_NOT_FOUND from onRequest, so their content type, size and
 * JSON are never looked at (docs/api.md, "Order of checks": credential, then route, then
 * body). Registered after the credential and rate-limit hooks, which therefore still come
 * first.
 */
export function answerUnknownRoutesBeforeBody(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.is404) return done();
    done(new ApiError('ROUTE_NOT_FOUND', { method: request.method, path: request.url.split('?')[0] }));
  });
}
