import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { sendPage } from './page.js';
import { messagePage } from './pages/messages.js';

/** Every form of these pages is a few hidden fields; nothing longer is read. */
export const FORM_BODY_LIMIT = 8 * 1024;

/**
 * Form posts for the browser pages only: inside the pages' plugin scope the JSON parser of
 * the API is replaced by one for `application/x-www-form-urlencoded`, bounded, read with
 * URLSearchParams. A body of another type or too large is answered with a page; any other
 * failure goes on to the server's error handler.
 */
export function acceptFormBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, new URLSearchParams(body as string)),
  );
  scope.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendPage(reply, 413, messagePage('Form too large', 'The form sent more than this page accepts.'));
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return sendPage(reply, 415, messagePage('Not a form', 'This address accepts only a submitted HTML form.'));
    throw error;
  });
}

/** One field of a posted form (its first value), or undefined when absent or longer than `max`. */
export function formField(request: FastifyRequest, name: string, max = 256): string | undefined {
  const body = request.body;
  if (!(body instanceof URLSearchParams)) return undefined;
  const value = body.get(name);
  return value !== null && value.length <= max ? value : undefined;
}
