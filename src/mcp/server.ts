import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../core/context.js';
import { callTool } from './call.js';
import type { McpTool } from './tools.js';

const SERVER_INFO = { name: 'wsx', version: '1.0.0' };
const INSTRUCTIONS =
  'Tools mirror the Workspace Execution External API routes one to one. Start with whoami, then list_teams, list_users ' +
  'and list_statuses; prefer natural keys (teamKey, projectKey, issueKey, statusKey). Errors come back with isError and a ' +
  'machine-readable code.';

/**
 * An MCP server for one HTTP request (stateless Streamable HTTP). The low-level Server is
 * used because tool input schemas are JSON Schema generated from the catalog, which the
 * high-level McpServer (zod schemas) does not take. `dropped` answers, by request id, the
 * argument names the SDK's parse removed from a call (see sent-arguments.ts).
 */
export function buildMcpServer(
  tools: McpTool[],
  makeCtx: () => Ctx,
  log: FastifyBaseLogger,
  dropped: (id: string | number) => string[] = () => [],
  charge?: (extra: number) => Promise<void>,
): Server {
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((tool) => tool.definition) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(tool, request.params.arguments ?? {}, makeCtx, log, dropped(extra.requestId), charge);
  });
  return server;
}
