import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { listGrants, revokeGrant } from '../../modules/oauth/index.js';
import { csrfChecked, seeOther, sessionOf } from '../answers.js';
import { sendPage } from '../page.js';
import { connectorsPage } from '../pages/connectors.js';
import { messagePage } from '../pages/messages.js';
import { CONNECTORS_PATH } from '../../http/page-paths.js';

/**
 * The signed-in person's connectors: the list (GET) and revoking one (POST, CSRF-checked).
 * Every query is bound to the session's workspace and user, so another person's grant is
 * neither shown nor revoked. /settings itself leads here.
 */
export function connectorRoutes(scope: FastifyInstance, db: Kysely<DB>): void {
  scope.get('/settings', async (request, reply) => {
    sessionOf(request);
    return seeOther(reply, CONNECTORS_PATH);
  });

  scope.get(CONNECTORS_PATH, async (request, reply) => {
    const session = sessionOf(request);
    const grants = await listGrants(db, { workspaceId: session.workspaceId, userId: session.userId });
    return sendPage(reply, 200, connectorsPage(session, grants));
  });

  scope.post(`${CONNECTORS_PATH}/:grantId/revoke`, async (request, reply) => {
    const session = sessionOf(request);
    if (!csrfChecked(request, reply, session)) return reply;
    const { grantId } = request.params as { grantId: string };
    const revoked = await revokeGrant(db, { workspaceId: session.workspaceId, userId: session.userId, grantId });
    if (!revoked)
      return sendPage(
        reply,
        404,
        messagePage('No such connector', 'You have no connector with this id, so nothing was revoked.'),
      );
    return seeOther(reply, CONNECTORS_PATH);
  });
}
