import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config.js';
import { ApiError, isApiError } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { requireAuth } from '../http/auth.js';
import { buildCtx } from '../http/operations.js';
import { continueTrace } from '../http/trace.js';
import type { Operation } from '../operations/define.js';
import type { ClaimHolder } from '../modules/idempotency/index.js';
import type * as Eras from './eras.js';
import type * as McpServerModule from './server.js';
import { parseSelection, toolSelector, type Selection } from './selection.js';
import { droppedArgumentNames } from './sent-arguments.js';
import { authInfoOf, McpSession, sessionOf } from './session.js';
import { canStepUp, stepUpChallenge, writeToolCalled } from './step-up.js';
import { routeIndex, toolFormOf } from './suggestions.js';
import { buildTools } from './tools.js';
import { checkToolsets } from './toolsets.js';

const MCP_PATH = '/api/mcp';

/**
 * The MCP SDK and the server built on it load on the first /api/mcp request: importing them
 * is a large part of the process's start-up, and /healthz should answer before that.
 */
let mcpModules: Promise<[typeof Eras, typeof McpServerModule]> | undefined;
const loadMcpModules = () => (mcpModules ??= Promise.all([import('./eras.js'), import('./server.js')]));

/** The most JSON-RPC messages one POST may carry (2025-03-26 clients may batch). */
export const MAX_BATCH_MESSAGES = 50;

/** Every answer is plain JSON, whatever the client said it accepts. */
const ANSWERABLE = 'application/json, text/event-stream';

/**
 * The request as the SDK takes it: its URL and headers, without a body. The body goes
 * to the SDK already parsed (Fastify read it, within its size and depth limits), so it
 * is never serialized again; a POST without one reaches the SDK as null, which answers
 * a JSON-RPC parse error. The SDK refuses (406) a POST whose Accept does not name both
 * JSON and SSE, as the protocol asks clients to send; answers here are always JSON, so a
 * client that accepts only application/json (or sends no Accept) is served, not refused.
 */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  headers.set('accept', ANSWERABLE);
  // The SDK reads the method, headers and query, never the host: a fixed origin keeps a
  // hostile Host header out of the URL.
  const query = request.url.indexOf('?');
  return new Request(`http://localhost${MCP_PATH}${query < 0 ? '' : request.url.slice(query)}`, {
    method: 'POST',
    headers,
  });
}

/** An SDK answer as this route's reply: always a complete JSON body (or none), never a stream. */
async function sendResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') reply.header(name, value);
  });
  return reply.send(await response.text());
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
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  const select = toolSelector(tools);
  const routes = routeIndex(tools);
  let handle: Eras.EraHandler | undefined;

  const sessionFor = (request: FastifyRequest, reply: FastifyReply, selection: Selection): McpSession => {
    const auth = requireAuth(request);
    const selected = select(selection);
    return new McpSession(
      selected,
      {
        makeCtx: () => buildCtx(request, database, config),
        auth,
        log: request.log,
        charge: async (extra) => app.spendRequestBudget?.(request, reply, extra),
        keys: { database, holder, ttlHours: config.idempotencyTtlHours },
        continueTrace: (traceparent) => continueTrace(request, traceparent),
        suggestFor: (suggestion) => toolFormOf(suggestion, routes, selected.callable),
      },
      droppedArgumentNames(request.body),
    );
  };

  app.post(MCP_PATH, async (request, reply) => {
    const auth = requireAuth(request);
    let selection: Selection;
    try {
      // An OAuth client granted `read` sees every tool: a write call asks it to step up (step-up.ts).
      selection = parseSelection(request.query, auth.accessLevel === 'read' && !canStepUp(auth));
    } catch (error) {
      if (isApiError(error)) return invalidRequest(reply, error);
      throw error;
    }
    // Each message of a batch is a request for the rate limit (the POST itself counted one),
    // charged before any of them runs: past the budget the whole POST is refused with 429.
    const messages = Array.isArray(request.body) ? request.body.length : 1;
    if (messages > MAX_BATCH_MESSAGES) return invalidRequest(reply, batchTooLarge(messages));
    if (messages > 1) await app.spendRequestBudget?.(request, reply, messages - 1);
    if (canStepUp(auth)) {
      const write = writeToolCalled(request.body, byName);
      if (write) return sendResponse(reply, stepUpChallenge(write, app.resourceMetadataUrl?.(request)));
    }

    const [eras, { buildMcpServer }] = await loadMcpModules();
    handle ??= eras.bothEras(
      (authInfo) => buildMcpServer(sessionOf(authInfo)),
      (error) => app.log.debug({ err: error }, 'MCP request refused'),
    );
    const session = sessionFor(request, reply, selection);
    try {
      const webRequest = webRequestOf(request);
      const scopes = auth.accessLevel === 'write' ? ['read', 'write'] : ['read'];
      return await sendResponse(reply, await handle(webRequest, request.body ?? null, authInfoOf(session, scopes)));
    } catch (error) {
      request.log.error({ err: error }, 'MCP request failed');
      return reply
        .code(500)
        .type('application/json')
        .send({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null });
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
