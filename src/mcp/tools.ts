import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { ApiError } from '../core/errors.js';
import { acceptsIdempotencyKey, takesVersionCondition, type Operation } from '../operations/define.js';
import { assertValidKey } from '../modules/idempotency/index.js';
import { annotationsOf } from './annotations.js';
import { outputSchemaOf, type OutputSchema } from './output-schema.js';
import { aliasesSent, fieldsOf } from './tool-schema.js';

/**
 * MCP tools generated from the operation catalog: one tool per operation, named by its id.
 * A tool's arguments are the route's path parameters, query parameters and body fields
 * under the same names (aliases left out: tool-schema.ts), and `resolve` splits them back
 * so the call runs exactly as the HTTP route would. Where a route has a by-key twin
 * (`/projects/by-key/{teamKey}/{projectKey}` beside `/projects/{projectId}`) or
 * `mcpAliases` (issueKey for issueId), the tool takes either form. Two arguments stand for
 * HTTP headers: `expectedVersion` (If-Match) and `idempotencyKey` (Idempotency-Key).
 */

type JsonSchema = Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  /** For people: the name with its words spelled out (`list_issues` → "List issues"). */
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
  outputSchema: OutputSchema;
  annotations: ToolAnnotations;
}

const titleOf = (name: string): string => {
  const words = name.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export interface RawInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
  /** `expectedVersion` of a tool that changes a versioned record: If-Match's twin. */
  expectedVersion?: number;
  /** `idempotencyKey` of a tool whose route honours Idempotency-Key: the header's twin. */
  idempotencyKey?: string;
}

// Common to many tools, so described once, in the server's instructions (server.ts).
const EXPECTED_VERSION = 'expectedVersion';
const expectedVersionSchema = { type: 'integer' };
const IDEMPOTENCY_KEY = 'idempotencyKey';
const idempotencyKeySchema = { type: 'string' };

export interface McpTool {
  definition: ToolDefinition;
  /** The operation the tool is named after (a by-key twin it may run instead has the same method). */
  op: Operation;
  /**
   * The operation that serves these arguments, and the arguments split as HTTP would send
   * them. `dropped`: argument names the client sent that the protocol layer removed.
   */
  resolve(args: Record<string, unknown>, dropped?: readonly string[]): { op: Operation; input: RawInput };
}

const pathParams = (op: Operation): string[] => Object.keys(fieldsOf(op.params).properties);

/** `/projects/by-key/{teamKey}/{projectKey}` is the by-key twin of `/projects/{projectId}` (same method). */
function byKeyTwin(op: Operation, operations: Operation[]): Operation | undefined {
  const match = /^(.*)\/\{\w+\}$/.exec(op.path);
  if (!match) return undefined;
  return operations.find(
    (other) => other !== op && other.method === op.method && other.path.startsWith(`${match[1]}/by-key/`),
  );
}

function definitionOf(op: Operation, twin: Operation | undefined): ToolDefinition {
  const params = fieldsOf(op.params);
  const query = fieldsOf(op.query, true);
  const body = fieldsOf(op.body);
  const aliases = Object.entries(op.mcpAliases ?? {});
  const twinParams = twin ? fieldsOf(twin.params).properties : {};
  // The parameter's own description says what else it takes (issueId: "issueId or issueKey").
  const aliasProperties = Object.fromEntries(aliases.map(([alias]) => [alias, { type: 'string' }]));
  // A path parameter that another argument can stand for is not required on its own.
  const aliasTargets = new Set(aliases.map(([, target]) => target));
  const paramsRequired = twin ? [] : params.required.filter((name) => !aliasTargets.has(name));
  // A field with its own error code is never required here, so that code reaches the caller.
  const bodyRequired = body.required.filter((field) => !op.fieldCodes?.[field]);
  const required = [...new Set([...paramsRequired, ...query.required, ...bodyRequired])];
  // The twin's key parameters, unless one is already a stand-in (issueKey): the description says so.
  const twinKeys = Object.keys(twinParams).filter((name) => !Object.hasOwn(op.mcpAliases ?? {}, name));
  return {
    name: op.id,
    title: titleOf(op.id),
    description: twinKeys.length ? `${op.summary} (or by ${twinKeys.join(' and ')})` : op.summary,
    inputSchema: {
      type: 'object',
      properties: {
        ...body.properties,
        ...query.properties,
        ...twinParams,
        ...aliasProperties,
        ...params.properties,
        ...(takesVersionCondition(op) ? { [EXPECTED_VERSION]: expectedVersionSchema } : {}),
        ...(acceptsIdempotencyKey(op) ? { [IDEMPOTENCY_KEY]: idempotencyKeySchema } : {}),
      },
      ...(required.length ? { required } : {}),
    },
    outputSchema: outputSchemaOf(op.response),
    annotations: annotationsOf(op),
  };
}

/**
 * Which argument names an operation reads from its path, its query string and its body.
 * Sets and Maps, never plain-object lookups: an argument named `constructor` or `toString`
 * must not find Object.prototype's member and pass for a known name.
 */
interface RouteShape {
  op: Operation;
  paramNames: Set<string>;
  queryNames: Set<string>;
  bodyNames: Set<string>;
  /** Alias → the path parameter it stands for. */
  aliases: Map<string, string>;
}

const shapeOf = (op: Operation): RouteShape => ({
  op,
  paramNames: new Set(pathParams(op)),
  queryNames: new Set(Object.keys(fieldsOf(op.query).properties)),
  bodyNames: new Set(Object.keys(fieldsOf(op.body).properties)),
  aliases: new Map(Object.entries(op.mcpAliases ?? {})),
});

const has = (args: Record<string, unknown>, name: string): boolean =>
  Object.hasOwn(args, name) && args[name] !== undefined;

/**
 * Splits tool arguments into params, query and body by the operation's schemas. Every
 * name must be one the route knows; any other (including `__proto__`, `constructor`,
 * `toString`, and `dropped`: names the protocol layer removed before the call) is refused
 * as VALIDATION_FAILED with `unknownFields`, before anything runs. The parts are built
 * from entries (Object.fromEntries defines own properties), so no name can reach a setter.
 */
function splitArguments(shape: RouteShape, args: Record<string, unknown>, dropped: readonly string[]): RawInput {
  const params: Array<[string, unknown]> = [];
  const query: Array<[string, unknown]> = [];
  const body: Array<[string, unknown]> = [];
  const unknownFields = [...dropped];
  let expectedVersion: number | undefined;
  let idempotencyKey: string | undefined;
  for (const name of Object.keys(args)) {
    const value = args[name];
    const target = shape.aliases.get(name);
    if (name === EXPECTED_VERSION && takesVersionCondition(shape.op)) expectedVersion = parseExpectedVersion(value);
    else if (name === IDEMPOTENCY_KEY && acceptsIdempotencyKey(shape.op)) {
      assertValidKey(value, IDEMPOTENCY_KEY);
      idempotencyKey = value;
    } else if (shape.paramNames.has(name)) params.push([name, value]);
    else if (target !== undefined && shape.paramNames.has(target)) {
      // The parameter itself wins over its alias.
      if (!has(args, target)) params.push([target, value]);
    } else if (shape.queryNames.has(name)) query.push([name, value]);
    else if (shape.bodyNames.has(name)) body.push([name, value]);
    else unknownFields.push(name);
  }
  // An alias nested in a known field (a bulk write's items) is refused as well.
  unknownFields.push(...aliasesSent(shape.op.body, Object.fromEntries(body)));
  if (unknownFields.length > 0) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { unknownFields },
      { message: `Unknown argument(s): ${unknownFields.join(', ')}.` },
    );
  }
  const input: RawInput = {
    params: Object.fromEntries(params),
    query: Object.fromEntries(query),
    body: undefined,
    ...(expectedVersion !== undefined ? { expectedVersion } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
  };
  for (const name of shape.paramNames) {
    const value = Object.hasOwn(input.params, name) ? input.params[name] : undefined;
    if (typeof value !== 'string' || value.length === 0) {
      throw new ApiError(
        'VALIDATION_FAILED',
        { field: name },
        { message: `${name} is required and must be a non-empty string.` },
      );
    }
  }
  if (body.length > 0 || shape.op.body) input.body = Object.fromEntries(body);
  return input;
}

/** A JSON integer of at least 1, as the schema says: no string is read as a number. */
function parseExpectedVersion(value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  throw new ApiError(
    'VALIDATION_FAILED',
    { field: EXPECTED_VERSION, min: 1 },
    { message: 'expectedVersion must be an integer of at least 1: the version field of the record you read.' },
  );
}

export function buildTools(operations: Operation[]): McpTool[] {
  return operations.map((op) => {
    const twin = byKeyTwin(op, operations);
    const primary = shapeOf(op);
    const byKeys = twin && shapeOf(twin);
    return {
      definition: definitionOf(op, twin),
      op,
      resolve(args, dropped = []) {
        const shape = byKeys && [...byKeys.paramNames].every((name) => has(args, name)) ? byKeys : primary;
        return { op: shape.op, input: splitArguments(shape, args, dropped) };
      },
    };
  });
}
