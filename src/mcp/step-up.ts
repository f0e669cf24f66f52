import { bearerAuthChallengeResponse, OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import type { Authenticated } from '../core/context.js';
import { isReadOperation } from '../modules/auth/index.js';
import type { McpTool } from './tools.js';

/**
 * Step-up authorization: an OAuth client whose token was granted `read` and that calls a
 * write tool is answered HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="write"` (the SDK's challenge), before anything runs, so it can ask the person for
 * more and call again. A workspace token cannot be re-issued by its client: its write calls
 * keep the tool error TOKEN_READ_ONLY, and it is served only the read tools.
 */

export const canStepUp = (auth: Pick<Authenticated, 'accessLevel' | 'principal'>): boolean =>
  auth.accessLevel === 'read' && auth.principal.kind === 'user';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first write tool a request's messages (one, or a batch) call, by name. */
export function writeToolCalled(body: unknown, tools: ReadonlyMap<string, McpTool>): string | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params)) continue;
    const { name } = message.params;
    const tool = typeof name === 'string' ? tools.get(name) : undefined;
    if (tool && !isReadOperation(tool.op)) return tool.definition.name;
  }
  return undefined;
}

export const stepUpChallenge = (tool: string, resourceMetadataUrl: string | undefined): Response =>
  bearerAuthChallengeResponse(
    new OAuthError(OAuthErrorCode.InsufficientScope, `${tool} writes; this token was granted read only.`),
    { requiredScopes: ['write'], ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) },
  );
