import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../core/errors.js';

/** Maps Fastify's own transport errors to catalog codes; anything unknown is INTERNAL_ERROR. */
function toApiError(error: FastifyError | Error): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const code = (error as FastifyError).code;
  switch (code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', { contentType: null });
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
  if (error.code === 'UNAUTHORIZED') reply.header('WWW-Authenticate', 'Bearer');
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toBody());
}

/** The one error renderer: `{ error, code, details, suggestion }`, never a stack or SQL. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError) return sendError(reply, apiError);
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, new ApiError('INTERNAL_ERROR', {}));
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new ApiError('ROUTE_NOT_FOUND', { method: request.method, path: request.url.split('?')[0] })),
  );
}
