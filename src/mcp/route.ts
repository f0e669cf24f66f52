import type { IncomingMessage } from 'node:http';
import type * as StreamableHttp from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppConfig } from '../config.js';
import { ApiError, isApiError } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { requireAuth } from '../http/auth.js';
import { buildCtx } from '../http/operations.js';
import type { Operation } from '../operations/define.js';
import type { ClaimHolder } from '../modules/idempotency/index.js';
import { parseSelection, toolSelector, type Selection } from './selection.js';
import { droppedArgumentNames } from './sent-arguments.js';
import { routeIndex, toolFormOf } from './suggestions.js';
import type * as McpServerModule from './server.js';
import { buildTools } from './tools.js';
import { checkToolsets } from './toolsets.js';

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
 * A request refused before any message runs (an unknown query parameter or toolset, a batch
 * too large): HTTP 400 with a JSON-RPC Invalid Request error, as the SDK answers its own
 * batch limit, carrying the API's error body as `data`.
 */
function invalidRequest(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(400)
    .type('application/json; charset=utf-8')
    .send({
      jsonrpc: '2.0',
      error: { code: -32600, message: `Invalid Request: ${error.message}`, data: error.toBody() },
      id: null,
    });
}

const batchTooLarge = (received: number): ApiError =>
  new ApiError(
    'VALIDATION_FAILED',
    { field: 'body', maxBatchSize: MAX_BATCH_MESSAGES, received },
    {
      message: `A JSON-RPC batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${received}.`,
      suggestion: `Send at most ${MAX_BATCH_MESSAGES} messages per POST.`,
    },
  );

/**
 * `/api/mcp`: Model Context Protocol over Streamable HTTP, stateless (a fresh server and
 * transport per POST, JSON answers). Authentication is the global hook's, as for
 * /api/external; every tool call builds its Ctx from the request like an HTTP route. The
 * query string picks the tools (selection.ts): `toolsets` and `readonly`.
 */
export function registerMcp(
  app: FastifyInstance,
  operations: Operation[],
  database: Database,
  config: AppConfig,
  holder: ClaimHolder,
): void {
  checkToolsets(operations);
  const tools = buildTools(operations);
  const select = toolSelector(tools);
  const routes = routeIndex(tools);

  app.post(MCP_PATH, async (request, reply) => {
    const auth = requireAuth(request);
    let selection: Selection;
    try {
      selection = parseSelection(request.query, auth.accessLevel === 'read');
    } catch (error) {
      if (isApiError(error)) return invalidRequest(reply, error);
      throw error;
    }
    // Each message of a batch is a request for the rate limit (the POST itself counted one),
    // charged before any of them runs: past the budget the whole POST is refused with 429.
    const messages = Array.isArray(request.body) ? request.body.length : 1;
    if (messages > MAX_BATCH_MESSAGES) return invalidRequest(reply, batchTooLarge(messages));
    if (messages > 1) await app.spendRequestBudget?.(request, reply, messages - 1);

    const [{ StreamableHTTPServerTransport }, { buildMcpServer }] = await loadMcpModules();
    const selected = select(selection);
    const server = buildMcpServer(
      selected,
      {
        makeCtx: () => buildCtx(request, database, config),
        auth,
        log: request.log,
        charge: async (extra) => app.spendRequestBudget?.(request, reply, extra),
        keys: { database, holder, ttlHours: config.idempotencyTtlHours },
        suggestFor: (suggestion) => toolFormOf(suggestion, routes, selected.callable),
      },
      droppedArgumentNames(request.body),
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
