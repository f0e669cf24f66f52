import type { Ctx } from '../../db/context.js';
import { CAPABILITIES, ENDPOINT_MAP } from './endpoint-map.js';

/** GET /api/external: who the caller is, what it may do, its workspace, capabilities and the endpoint map. */
export function describeCaller(ctx: Ctx) {
  const { principal, workspace } = ctx;
  return {
    ok: true,
    token: principal.kind === 'api_token' ? { name: principal.tokenName, assigneeId: principal.id } : null,
    principal: { kind: principal.kind, id: principal.id },
    access: ctx.accessLevel,
    workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug, type: 'standard' },
    capabilities: CAPABILITIES,
    endpoints: ENDPOINT_MAP,
  };
}
