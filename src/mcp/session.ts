import type { AuthInfo } from '@modelcontextprotocol/server';
import type { CallContext } from './call.js';
import type { ToolSelection } from './selection.js';

/**
 * What one /api/mcp request serves: its tools (by its query string and credential) and how
 * a call runs as that request. The SDK builds a server for each request from a factory
 * given only the request's authentication, so the session rides in it (`AuthInfo.extra`,
 * which the SDK passes through untouched); nothing is kept between requests.
 */
export class McpSession {
  constructor(
    readonly tools: ToolSelection,
    readonly call: CallContext,
    /** By JSON-RPC request id, argument names the SDK's parse removed (sent-arguments.ts). */
    readonly dropped: (id: string | number) => string[],
  ) {}
}

const SESSION_KEY = 'wsx/session';

/** The request's authentication as the SDK carries it, with its session. */
export const authInfoOf = (session: McpSession, scopes: string[]): AuthInfo => ({
  token: '',
  clientId: session.call.auth.credentialId,
  scopes,
  extra: { [SESSION_KEY]: session },
});

export function sessionOf(authInfo: AuthInfo | undefined): McpSession {
  const session = authInfo?.extra?.[SESSION_KEY];
  if (!(session instanceof McpSession)) throw new Error('An MCP server was asked for without its request session');
  return session;
}
