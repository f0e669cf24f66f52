import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/** One HTTP request to /api/mcp, answered whole. */
export type EraHandler = (request: Request, parsedBody: unknown, authInfo: AuthInfo) => Promise<Response>;

/**
 * Both protocol eras from one server factory, as the SDK's composition for a strict modern
 * endpoint beside a legacy one describes. A 2026-07-28 request (its `_meta` envelope names
 * the revision) goes to the SDK's handler: `server/discover`, the per-request version, the
 * Mcp-Method / Mcp-Name header checks, the version errors and the cache hints are the SDK's.
 * A 2025-era request (`initialize`, then calls without an envelope) is served statelessly
 * by the SDK's Streamable HTTP transport, one per request, answering plain JSON as this
 * endpoint always has. The SDK's own classifier (isLegacyRequest) decides which.
 */
export function bothEras(
  serverFor: (authInfo: AuthInfo | undefined) => Server,
  onerror: (error: Error) => void,
): EraHandler {
  // Answers are single JSON bodies: the tools send no message before their result (the
  // default `auto` mode streams only then).
  const modern = createMcpHandler(({ authInfo }) => serverFor(authInfo), { legacy: 'reject', onerror });
  return async (request, parsedBody, authInfo) => {
    if (!(await isLegacyRequest(request, parsedBody))) return modern.fetch(request, { authInfo, parsedBody });
    const server = serverFor(authInfo);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    transport.onerror = onerror;
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody, authInfo });
    } finally {
      void transport.close();
      void server.close();
    }
  };
}
