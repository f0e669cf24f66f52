import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config.js';
import { nowIso } from '../core/clock.js';
import type { Ctx } from '../db/context.js';
import { ApiError } from '../core/errors.js';
import type { Database } from '../db/database.js';
import {
  acceptsIdempotencyKey,
  extraRequestCost,
  takesVersionCondition,
  type Operation,
  type Result,
} from '../operations/define.js';
import { entityTag, stillCurrent, versionCondition, type VersionCondition } from '../operations/entity-tags.js';
import { executeOperation } from '../operations/execute.js';
import { locationResolver } from '../api/location.js';
import { parseInput } from '../operations/validate.js';
import { refuseWriteByReadOnly } from '../modules/auth/index.js';
import { type ClaimHolder, assertValidKey, canonicalPath, runKeyedWrite } from '../modules/idempotency/index.js';
import { pathOf, requireAuth } from './auth.js';

const toFastifyPath = (template: string): string => template.replace(/\{(\w+)\}/g, ':$1');

/** The record's version an answer is about, for its ETag (versioned resources only). */
function versionOf(op: Operation, result: Result): number | undefined {
  if (result.version !== undefined || !op.resource) return result.version;
  const record = (result.body as Record<string, { version?: unknown }> | undefined)?.[op.resource.name];
  return typeof record?.version === 'number' ? record.version : undefined;
}

/**
 * Sends a result; `location` is the created resource's path, set on a 201 (replays too).
 * Every read, and every write that answers a versioned record, carries an ETag; a read
 * whose answer the client already holds (If-None-Match) is a 304 without a body.
 */
function send(
  reply: FastifyReply,
  op: Operation,
  result: Result,
  location: string | undefined,
  ifNoneMatch: string | undefined,
): FastifyReply {
  reply.code(result.status);
  if (location !== undefined) reply.header('Location', location);
  if (result.status === 204 || result.body === undefined) return reply.send();
  // Encoded once: the tag is hashed from the very bytes the reply sends, and the socket is
  // handed those bytes, so a page is not encoded again for the hash or joined to its headers.
  const body = Buffer.from(JSON.stringify(result.body));
  const version = versionOf(op, result);
  if (op.method === 'GET' || version !== undefined) {
    const tag = entityTag(body, version);
    reply.header('ETag', tag);
    if (op.method === 'GET') {
      reply.header('Cache-Control', 'private, no-cache');
      if (result.status === 200 && stillCurrent(ifNoneMatch, tag)) return reply.code(304).send();
    }
  }
  return reply.type('application/json; charset=utf-8').send(body);
}

/** If-Match on a PATCH or DELETE: the versions the record must still have; only versioned records take it. */
function conditionOf(op: Operation, header: string | string[] | undefined): VersionCondition | undefined {
  if (header === undefined || (op.method !== 'PATCH' && op.method !== 'DELETE')) return undefined;
  if (!takesVersionCondition(op))
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'If-Match' },
      {
        message: 'This route changes no versioned record, so it does not take If-Match.',
        suggestion: 'Send the request without If-Match; the API reference at /docs lists the routes that take it.',
      },
    );
  return versionCondition(Array.isArray(header) ? header.join(',') : header);
}

export function buildCtx(request: FastifyRequest, database: Database, config: AppConfig): Ctx {
  const auth = requireAuth(request);
  const nowMs = Date.now();
  return {
    db: database.db,
    store: database,
    dialect: database.dialect,
    config,
    workspace: auth.workspace,
    principal: auth.principal,
    access: auth.access,
    accessLevel: auth.accessLevel,
    nowMs,
    now: nowIso(nowMs),
    // Set as the request arrived (observability/request-hooks.ts) or by continueTrace (trace.ts).
    trace: request.trace,
  };
}

/**
 * The fixed paths a parametric template also matches (`/meetings/settings` for
 * `/meetings/{meetingId}`), worked out once per route so that the routes no fixed path
 * shadows (nearly all) skip the check.
 */
function fixedPathsMatching(template: string, fixedPaths: string[]): Set<string> {
  if (!template.includes('{')) return new Set();
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
  const matches = new RegExp(`^${escaped}$`);
  return new Set(fixedPaths.filter((path) => matches.test(path)));
}

/** The HTTP door: one Fastify route per catalog operation; translation only. */
export function registerOperations(
  app: FastifyInstance,
  operations: Operation[],
  database: Database,
  config: AppConfig,
  holder: ClaimHolder,
): void {
  // A fixed path (`/meetings/settings`) is also matched by its parametric sibling
  // (`/meetings/{meetingId}`) for the methods it lacks; such a request names no resource,
  // so it is an unsupported method on a known path: ROUTE_NOT_FOUND.
  const fixedPaths = operations.filter((op) => !op.path.includes('{')).map((op) => op.path);
  const locationOf = locationResolver(operations);
  for (const op of operations) {
    const shadowed = fixedPathsMatching(op.path, fixedPaths);
    app.route({
      method: op.method,
      url: toFastifyPath(op.path),
      config: { operationId: op.id },
      // Credential (and rate limit), then route, then the caller's right to write, all before
      // the body is read: a read-only credential's write is refused whatever its body holds.
      // Synchronous, in the callback form (an async hook costs a promise and a microtask); what
      // it throws reaches the error handler as an async hook's rejection would.
      onRequest: (request, _reply, done) => {
        if (shadowed.size > 0) {
          const path = pathOf(request).replace(/\/+$/, '');
          if (shadowed.has(path)) throw new ApiError('ROUTE_NOT_FOUND', { method: request.method, path });
        }
        refuseWriteByReadOnly(requireAuth(request), op);
        done();
      },
      handler: async (request, reply) => {
        const ctx = buildCtx(request, database, config);
        const input = parseInput(op, { params: request.params, query: request.query, body: request.body });
        // Charged before the idempotency claim, so a 429 never leaves a key claimed.
        const extra = extraRequestCost(op, input.body);
        if (extra > 0) await app.spendRequestBudget?.(request, reply, extra);
        const params = input.params as Record<string, unknown>;
        const ifNoneMatch = request.headers['if-none-match'];
        const answer = (result: Result) => send(reply, op, result, locationOf(op, result, params), ifNoneMatch);
        const condition = conditionOf(op, request.headers['if-match']);
        const rawKey = request.headers['idempotency-key'];
        if (!acceptsIdempotencyKey(op) || rawKey === undefined)
          return answer(await executeOperation(op, ctx, input, { condition }));

        const key = Array.isArray(rawKey) ? '' : rawKey;
        assertValidKey(key);
        const { result, replayed } = await runKeyedWrite(
          {
            store: database,
            holder,
            ttlHours: config.idempotencyTtlHours,
            scope: { workspace_id: ctx.workspace.id, credential_id: requireAuth(request).credentialId, key },
            method: op.method,
            path: canonicalPath(op.path, params),
            body: request.body,
            nowMs: ctx.nowMs,
          },
          (inTransaction) => executeOperation(op, ctx, input, { condition, inTransaction }),
        );
        if (replayed) reply.header('Idempotent-Replayed', 'true');
        return answer(result);
      },
    });
  }
}
