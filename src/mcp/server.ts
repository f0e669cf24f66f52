import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { callTool, type CallContext } from './call.js';
import type { ToolSelection } from './selection.js';

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
  'This endpoint serves the default toolset; /api/mcp?toolsets=issues,planning,meetings,discussions,admin (any of',
  'them, or all) serves others, and readonly=true only the read tools.',
].join(' ');

/**
 * An MCP server for one HTTP request (stateless Streamable HTTP). The low-level Server is
 * used because tool input schemas are JSON Schema generated from the catalog, which the
 * high-level McpServer (zod schemas) does not take. `tools`: what this request's selection
 * lists and can call. `dropped` answers, by request id, the argument names the SDK's parse
 * removed from a call (see sent-arguments.ts).
 */
export function buildMcpServer(
  tools: ToolSelection,
  call: Omit<CallContext, 'dropped'>,
  dropped: (id: string | number) => string[] = () => [],
): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.definitions }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.callable.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(tool, request.params.arguments ?? {}, { ...call, dropped: dropped(extra.requestId) });
  });
  return server;
}
