import type { Static, TSchema } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Ctx } from '../db/context.js';
import type { WriteKind } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { ErrorCode } from '../core/errors.js';
import type { VersionedResource } from './versioned.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type WriteMethod = Exclude<HttpMethod, 'GET'>;

/** What an operation answers: an HTTP status and a JSON body (none for 204). */
export interface Result {
  status: number;
  body?: unknown;
  /** The record's version when `body` no longer shows it (a `fields=` selection left it out). */
  version?: number;
}

export const ok = (body: unknown): Result => ({ status: 200, body });
export const created = (body: unknown): Result => ({ status: 201, body });
/** Taken on, to be done after the answer (a webhook ping or redelivery, sent by the dispatcher). */
export const accepted = (body: unknown): Result => ({ status: 202, body });
export const noContent = (): Result => ({ status: 204 });

export interface OperationInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/**
 * One endpoint, declared once. The HTTP adapter, the MCP tool adapter and the OpenAPI
 * document are all generated from this record; none of them holds business logic.
 */
export type Operation<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
  R = unknown,
  Checked = unknown,
  Written = unknown,
> = OperationShape<P, Q, B, R> &
  (
    | RunsWhole<P, Q, B, R>
    | RunsInSteps<OperationInput<Static<P>, Static<Q>, Static<B>> & { prepared?: R }, Checked, Written>
  );

/** An operation's work as one function: in its write's transaction when it writes. */
interface RunsWhole<P extends TSchema, Q extends TSchema, B extends TSchema, R> {
  run: (ctx: Ctx, input: OperationInput<Static<P>, Static<Q>, Static<B>> & { prepared?: R }) => Promise<Result>;
  steps?: never;
}

/**
 * A write's work in the three steps Database.writeMergeable takes, so that the writes of one
 * kind committed one after the other share `kind`'s insert: `check` reads and decides and
 * changes nothing (it runs without a savepoint of its own), `finish` records the rest and
 * answers. Only a write has steps: a GET runs whole, outside any write.
 */
interface RunsInSteps<Input, Checked, Written> {
  method: WriteMethod;
  steps: WriteSteps<Input, Checked, Written>;
  run?: never;
}

export interface WriteSteps<Input, Checked, Written> {
  kind: WriteKind<Kysely<DB>, Checked, Written>;
  check: (ctx: Ctx, input: Input) => Promise<Checked>;
  finish: (ctx: Ctx, checked: Checked, written: Written) => Promise<Result>;
}

interface OperationShape<P extends TSchema, Q extends TSchema, B extends TSchema, R> {
  /** snake_case; also the MCP tool name. */
  id: string;
  method: HttpMethod;
  /** OpenAPI-style template, e.g. `/api/external/issues/{issueId}`. */
  path: string;
  /** OpenAPI tag (area). */
  tag: string;
  summary: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Documented success body (OpenAPI only). */
  response?: TSchema;
  /** Documented success status (OpenAPI only; `run` decides the real one). */
  successStatus?: 200 | 201 | 202 | 204;
  /**
   * A create that answers 200 with the existing record, creating nothing, when what it
   * would create is already there (a link that exists, an item already converted).
   */
  answersExisting?: boolean;
  /**
   * Body fields that have their own error code (docs/api.md, "Errors"): any schema failure
   * on such a field (missing, wrong type, empty) answers this code instead of
   * VALIDATION_FAILED.
   */
  fieldCodes?: Record<string, ErrorCode>;
  /**
   * The operation's own error codes (not-found, conflicts, rule violations), documented in
   * the OpenAPI document beside the codes every route or field can answer; the
   * response-conformance test refuses an answer whose code is in neither.
   */
  errors?: ErrorCode[];
  /**
   * Body fields the operation needs (OpenAPI `required`). The validator leaves them
   * optional on purpose: a missing one answers the service's own code (TITLE_REQUIRED…).
   */
  requiredFields?: Array<keyof Static<B> & string>;
  /**
   * The versioned record this operation reads or changes: its GET answers an ETag made from
   * the record's version; its PATCH and DELETE honour If-Match (MCP: `expectedVersion`).
   */
  resource?: VersionedResource;
  /** A non-POST write that honours Idempotency-Key as a POST does (a bulk PATCH). */
  takesIdempotencyKey?: boolean;
  /**
   * How many requests this one counts as against the caller's rate limit, from its checked
   * body (a bulk write: one per item); one when absent. Charged before the operation runs.
   */
  requestCost?: (body: Static<B>) => number;
  /** Extra MCP tool argument that may stand for a path parameter (e.g. issueKey for issueId). */
  mcpAliases?: Record<string, string>;
  /**
   * MCP tool annotations the method does not tell (src/mcp/annotations.ts): `destructive`
   * for a POST that removes or overwrites what was there (a retitle, a promotion).
   */
  mcpHints?: { destructive?: boolean };
  /**
   * Slow work a write needs that must not hold its transaction (a DNS lookup): runs before
   * the transaction opens, reads no database and writes nothing; what it answers reaches
   * `run` as `prepared`. `run` still makes every decision, in its transaction.
   */
  prepare?: (ctx: Ctx, input: OperationInput<Static<P>, Static<Q>, Static<B>>) => Promise<R>;
}

/** How many requests beyond itself a call weighs on the rate limit (a bulk write: one per item, less this one). */
export const extraRequestCost = (op: Operation, body: unknown): number =>
  Math.max(0, (op.requestCost?.(body) ?? 1) - 1);

/** Whether an operation honours Idempotency-Key (MCP: idempotencyKey): every POST, and writes that opt in. */
export const acceptsIdempotencyKey = (op: Operation): boolean =>
  op.method === 'POST' || op.takesIdempotencyKey === true;

/** Whether an operation changes a versioned record, and so takes If-Match (MCP: expectedVersion). */
export const takesVersionCondition = (op: Operation): boolean =>
  op.resource !== undefined && (op.method === 'PATCH' || op.method === 'DELETE');

export function defineOperation<
  P extends TSchema,
  Q extends TSchema,
  B extends TSchema,
  R = unknown,
  Checked = unknown,
  Written = unknown,
>(op: Operation<P, Q, B, R, Checked, Written>): Operation {
  return op as unknown as Operation;
}
