import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import {
  AuthorizationRequestError,
  approveAuthorization,
  consentUrl,
  denyAuthorization,
  readPendingAuthorization,
} from '../../modules/oauth/index.js';
import { csrfChecked, seeOther } from '../answers.js';
import { formField } from '../form-body.js';
import { sendPage } from '../page.js';
import { consentPage } from '../pages/consent.js';
import { messagePage, personInactivePage, signInPage } from '../pages/messages.js';
import { CONSENT_PATH } from '../../http/page-paths.js';
import { redirectTarget } from '../redirect-target.js';

const REQUEST_ID_RE = /^[A-Za-z0-9_-]{1,100}$/;

const noRequestPage = messagePage(
  'No authorization request',
  'This page answers an application that asks to connect, and the address names no such request.',
  'Start the connection again from the application.',
);
const goneRequestPage = messagePage(
  'Authorization request expired',
  'This request to connect has expired or was already answered, so nothing more can be done with it.',
  'Start the connection again from the application.',
);

/** Where a client known by its metadata document is described: the one fact about it a person can judge. */
const describedAt = (clientHost: string | undefined): string =>
  clientHost === undefined ? '' : ` (described at ${clientHost})`;

const requestIdOf = (value: unknown): string | undefined =>
  typeof value === 'string' && REQUEST_ID_RE.test(value) ? value : undefined;

/**
 * The consent page: GET shows the pending request to the signed-in person (or how to sign
 * in), POST records the answer and sends the browser back to the client with a code or
 * `error=access_denied`, and `iss`, the identifier `issuer` answers. The request is the one
 * the OAuth core saved at /authorize.
 */
export function consentRoutes(
  scope: FastifyInstance,
  db: Kysely<DB>,
  issuer: () => string,
  upstreamHost?: string,
): void {
  scope.get(CONSENT_PATH, async (request, reply) => {
    const requestId = requestIdOf((request.query as { request?: unknown }).request);
    if (!requestId) return sendPage(reply, 400, noRequestPage);
    const pending = await readPendingAuthorization(db, requestId);
    if (!pending) return sendPage(reply, 410, goneRequestPage);
    const session = request.browserSession;
    const target = redirectTarget(pending.redirectUri);
    // Anyone can send a person here, so the client's name is given as its own claim, beside
    // where the answer goes: whatever the name says, that is who would receive the access.
    if (!session)
      return sendPage(
        reply,
        401,
        signInPage(
          consentUrl(requestId),
          `An application that calls itself “${pending.clientName}”${describedAt(pending.clientHost)} asks to connect as you; ` +
            `your answer goes to ${target.label}. Sign in to answer.`,
          upstreamHost,
        ),
      );
    return sendPage(
      reply,
      200,
      consentPage(session, pending, target.label),
      target.formSource ? [target.formSource] : [],
    );
  });

  scope.post(CONSENT_PATH, async (request: FastifyRequest, reply) => {
    const requestId = requestIdOf(formField(request, 'request'));
    const session = request.browserSession;
    if (!session)
      return sendPage(
        reply,
        401,
        signInPage(requestId ? consentUrl(requestId) : CONSENT_PATH, undefined, upstreamHost),
      );
    if (!csrfChecked(request, reply, session)) return reply;
    const decision = formField(request, 'decision');
    if (!requestId || (decision !== 'approve' && decision !== 'deny')) return sendPage(reply, 400, noRequestPage);
    const pending = await readPendingAuthorization(db, requestId);
    if (!pending) return sendPage(reply, 410, goneRequestPage);
    let location: string;
    try {
      location =
        decision === 'approve'
          ? await approveAuthorization(
              db,
              requestId,
              { workspaceId: session.workspaceId, userId: session.userId },
              pending.scopes,
              issuer(),
            )
          : await denyAuthorization(db, requestId, issuer());
    } catch (error) {
      // Another answer (a second tab, a double click) consumed the request meanwhile.
      if (error instanceof AuthorizationRequestError && error.reason === 'gone')
        return sendPage(reply, 410, goneRequestPage);
      // The person was deactivated after the session was read: nothing is approved.
      if (error instanceof AuthorizationRequestError && error.reason === 'user')
        return sendPage(reply, 403, personInactivePage);
      throw error;
    }
    return seeOther(reply, location);
  });
}
