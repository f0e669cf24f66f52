import type { IncomingMessage } from 'node:http';
import type * as StreamableHttp from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppConfig } from '../config.js';
import { ApiError } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { buildCtx } from '../http/operations.js';
import type { Operation } from '../operations/define.js';
import { droppedArgumentNames } from './sent-arguments.js';
import type * as McpServerModule from './server.js';
import { buildTools } from './tools.js';

const MCP_PATH = '/api/mcp';

/**
 * The MCP SDK and the server built on it load on the first /api/mcp request: importing them
 * is a fifth of the process's start-up, and /healthz should answer before that.
 */
let mcpModules: Promise<[typeof StreamableHttp, typeof McpServerModule]> | undefined;
const loadMcpModules = () =>
  (mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./server.js')]));

/** The most JSON-RPC messages one POST may carry (the SDK itself stops at 100). */
export const MAX_BATCH_MESSAGES = 50;

/** Every answer is plain JSON (enableJsonResponse), whatever the client said it accepts. */
const ANSWERABLE = 'application/json, text/event-stream';

/**
 * The transport refuses (406) a POST whose Accept does not name both JSON and SSE, as the
 * protocol asks clients to send. Answers here are always JSON, so a client that accepts
 * only application/json (or sends no Accept) is served rather than refused. The
 * transport reads the raw header list, so that is where the value is set.
 */
function acceptJsonAnswers(raw: IncomingMessage): void {
  raw.headers.accept = ANSWERABLE;
  const index = raw.rawHeaders.findIndex((name, position) => position % 2 === 0 && name.toLowerCase() === 'accept');
  if (index >= 0) raw.rawHeaders[index + 1] = ANSWERABLE;
  else raw.rawHeaders.push('Accept', ANSWERABLE);
}

function jsonRpcError(reply: FastifyReply, status: number, message: string): void {
  reply.raw.statusCode = status;
  reply.raw.setHeader('content-type', 'application/json');
  reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message }, id: null }));
}

/**
 * A batch over MAX_BATCH_MESSAGES: HTTP 400 with a JSON-RPC Invalid Request error, as the
 * SDK answers its own batch limit, carrying the API's error body as `data`.
 */
function batchTooLarge(reply: FastifyReply, received: number): FastifyReply {
  const error = new ApiError(
    'VALIDATION_FAILED',
    { field: 'body', maxBatchSize: MAX_BATCH_MESSAGES, received },
    {
      message: `A JSON-RPC batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${received}.`,
      suggestion: `Send at most ${MAX_BATCH_MESSAGES} messages per POST.`,
    },
  );
  return reply
    .code(400)
    .type('application/json; charset=utf-8')
    .send({
      jsonrpc: '2.0',
      error: { code: -32600, message: `Invalid Request: ${error.message}`, data: error.toBody() },
      id: null,
    });
}

/**
 * `/api/mcp`: Model Context Protocol over Streamable HTTP, stateless (a fresh server and
 * transport per POST, JSON answers). Authentication is the global hook's, as for
 * /api/external; every tool call builds its Ctx from the request like an HTTP route.
 */
export function registerMcp(
  app: FastifyInstance,
  operations: Operation[],
  database: Database,
  config: AppConfig,
): void {
  const tools = buildTools(operations);

  app.post(MCP_PATH, async (request, reply) => {
    // Each message of a batch is a request for the rate limit (the POST itself counted one),
    // charged before any of them runs: past the budget the whole POST is refused with 429.
    const messages = Array.isArray(request.body) ? request.body.length : 1;
    if (messages > MAX_BATCH_MESSAGES) return batchTooLarge(reply, messages);
    if (messages > 1) await app.spendRequestBudget?.(request, reply, messages - 1);

    const [{ StreamableHTTPServerTransport }, { buildMcpServer }] = await loadMcpModules();
    const server = buildMcpServer(
      tools,
      () => buildCtx(request, database, config),
      request.log,
      droppedArgumentNames(request.body),
      async (extra) => app.spendRequestBudget?.(request, reply, extra),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // Headers set by earlier hooks (rate limit) must survive the hand-over to the transport.
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      acceptJsonAnswers(request.raw);
      // A POST without a body reaches the transport as null: it answers a JSON-RPC parse error.
      await transport.handleRequest(request.raw, reply.raw, request.body ?? null);
    } catch (error) {
      request.log.error({ err: error }, 'MCP request failed');
      if (!reply.raw.headersSent) jsonRpcError(reply, 500, 'Internal error');
    }
  });

  // Stateless: no server-initiated stream (GET) and no session to end (DELETE); the
  // protocol's answer for both is 405.
  const notAllowed = async (_request: unknown, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; use POST.' },
        id: null,
      });
  app.get(MCP_PATH, notAllowed);
  app.delete(MCP_PATH, notAllowed);
}
