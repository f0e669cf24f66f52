import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  TRACEPARENT_META_KEY,
  type Tool,
} from '@modelcontextprotocol/server';
import { isApiError } from '../core/errors.js';
import { DEFAULT_RESULT_BUDGET } from './budget.js';
import { callTool, runTool } from './call.js';
import type { McpSession } from './session.js';
import { parseTextLink, readableBy, textOf } from './text-resource.js';

const SERVER_INFO = { name: 'wsx', version: '1.0.0' };
const INSTRUCTIONS = [
  'Tools mirror the Workspace Execution External API routes one to one. Start with whoami, then list_teams, list_users',
  'and list_statuses; prefer natural keys (teamKey, projectKey, issueKey, statusKey). Errors come back with isError and',
  'a machine-readable code. Arguments have their JSON types (limit: 20, not "20"). Arguments many tools share:',
  'limit (page size, default 50, at most 200) and cursor (pageInfo.nextCursor of the previous page, same filters);',
  'fields (comma-separated fields each record keeps, default all); sort=updatedAt (oldest change first) with',
  'updatedSince (ISO 8601 date-time, inclusive) to sync changes; expectedVersion (the version you read: if the record',
  'changed since, nothing is written and the answer is PRECONDITION_FAILED); idempotencyKey on writes (1-255 visible',
  'ASCII characters: a retry with the same key and arguments answers the first result and writes nothing again).',
  `A result stays under about ${DEFAULT_RESULT_BUDGET} characters: a page then holds fewer records (follow nextCursor)`,
  'and a long text is cut with a marker and a resource_link whose resources/read answers it whole.',
  'This endpoint serves the default toolset; /api/mcp?toolsets=issues,planning,meetings,discussions,admin (any of',
  'them, or all) serves others, and readonly=true only the read tools.',
].join(' ');

/**
 * How long a client may keep the tool list (2026-07-28 `ttlMs`): the tools change only with
 * the server's version; `private`, because the list depends on the credential.
 */
const TOOL_LIST_CACHE = { ttlMs: 3_600_000, cacheScope: 'private' } as const;

/**
 * An MCP server for one HTTP request (both protocol eras, eras.ts). The low-level Server
 * is used because tool schemas are JSON Schema generated from the catalog (tools.ts),
 * listed as they are, and every call is checked by the catalog's own validation with its
 * error codes, not by the SDK's. Results go through the SDK's projection for the era.
 */
export function buildMcpServer(session: McpSession): Server {
  const { tools, call } = session;
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions: INSTRUCTIONS,
    cacheHints: { 'tools/list': TOOL_LIST_CACHE, 'resources/list': TOOL_LIST_CACHE },
  });
  // The schemas are JSON.parse output (tool-schema.ts): plain JSON values, as the type asks.
  const listed = tools.definitions as Tool[];
  server.setRequestHandler('tools/list', async () => ({ tools: listed }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const tool = tools.callable.get(request.params.name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    call.continueTrace(request.params._meta?.[TRACEPARENT_META_KEY]);
    const result = await callTool(tool, request.params.arguments ?? {}, call, {
      dropped: session.dropped(ctx.mcpReq.id),
      meta: request.params._meta,
    });
    return server.projectCallToolResult(result, tool.definition.outputSchema);
  });
  // The only resources are the whole texts that results cut (text-resource.ts): none to list.
  server.setRequestHandler('resources/list', async () => ({ resources: [] }));
  server.setRequestHandler('resources/read', async (request) => {
    const { uri } = request.params;
    const link = parseTextLink(uri);
    const tool = tools.callable.get(link.tool);
    if (!tool || !readableBy(tool.op))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `The link names no read tool this request serves: ${link.tool}`,
      );
    let body: unknown;
    try {
      ({ body } = await runTool(tool, link.args, call, []));
    } catch (error) {
      if (!isApiError(error)) throw error;
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, error.toBody());
    }
    return { contents: [{ uri, mimeType: 'text/plain', text: textOf(body, uri, link.path) }] };
  });
  return server;
}
