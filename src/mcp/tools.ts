import type { TSchema } from '@sinclair/typebox';
import { ApiError } from '../core/errors.js';
import type { Operation } from '../operations/define.js';

/**
 * MCP tools generated from the operation catalog: one tool per operation, named by its id.
 * A tool's arguments are the route's path parameters, query parameters and body fields
 * under the same names, and `resolve` splits them back so the call runs exactly as the
 * HTTP route would. Where a route has a by-key twin (`/projects/by-key/{teamKey}/{projectKey}`
 * beside `/projects/{projectId}`) or `mcpAliases` (issueKey for issueId), the tool takes
 * either form.
 */

type JsonSchema = Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean };
}

export interface RawInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

export interface McpTool {
  definition: ToolDefinition;
  /** The operation that serves these arguments, and the arguments split as HTTP would send them. */
  resolve(args: Record<string, unknown>): { op: Operation; input: RawInput };
}

interface Fields {
  properties: Record<string, JsonSchema>;
  required: string[];
}

/** Plain JSON Schema (drops TypeBox's symbol metadata). */
const plain = (schema: TSchema): JsonSchema => JSON.parse(JSON.stringify(schema));

/** Properties of an object schema, or of every member of a union of object schemas. */
function fieldsOf(schema: TSchema | undefined): Fields {
  if (!schema) return { properties: {}, required: [] };
  const json = plain(schema);
  if (json.properties) return { properties: json.properties as Record<string, JsonSchema>, required: (json.required as string[]) ?? [] };
  const members = (json.anyOf ?? json.oneOf) as JsonSchema[] | undefined;
  if (!members) return { properties: {}, required: [] };
  return { properties: Object.assign({}, ...members.map((m) => m.properties ?? {})), required: [] };
}

const pathParams = (op: Operation): string[] => Object.keys(fieldsOf(op.params).properties);

/** `/projects/by-key/{teamKey}/{projectKey}` is the by-key twin of `/projects/{projectId}` (same method). */
function byKeyTwin(op: Operation, operations: Operation[]): Operation | undefined {
  const match = /^(.*)\/\{\w+\}$/.exec(op.path);
  if (!match) return undefined;
  return operations.find((other) => other !== op && other.method === op.method && other.path.startsWith(`${match[1]}/by-key/`));
}

function definitionOf(op: Operation, twin: Operation | undefined): ToolDefinition {
  const params = fieldsOf(op.params);
  const query = fieldsOf(op.query);
  const body = fieldsOf(op.body);
  const aliases = Object.entries(op.mcpAliases ?? {});
  const twinParams = twin ? fieldsOf(twin.params).properties : {};
  const aliasProperties = Object.fromEntries(aliases.map(([alias, target]) => [alias, { type: 'string', description: `Stands for ${target}.` }]));
  // A path parameter that another argument can stand for is not required on its own.
  const aliasTargets = new Set(aliases.map(([, target]) => target));
  const paramsRequired = twin ? [] : params.required.filter((name) => !aliasTargets.has(name));
  // A field with its own error code is never required here, so that code reaches the caller.
  const bodyRequired = body.required.filter((field) => !op.fieldCodes?.[field]);
  const required = [...new Set([...paramsRequired, ...query.required, ...bodyRequired])];
  const alternatives = [
    twin && `or by ${Object.keys(twinParams).join(' and ')}`,
    ...aliases.filter(([alias]) => !(alias in twinParams)).map(([alias, target]) => `${alias} may stand for ${target}`),
  ].filter(Boolean).join('; ');
  return {
    name: op.id,
    description: alternatives ? `${op.summary} (${alternatives})` : op.summary,
    inputSchema: {
      type: 'object',
      properties: { ...body.properties, ...query.properties, ...twinParams, ...aliasProperties, ...params.properties },
      ...(required.length ? { required } : {}),
    },
    annotations: { readOnlyHint: op.method === 'GET', destructiveHint: op.method === 'DELETE' },
  };
}

/** Which argument names an operation reads from its path and its query string. */
interface RouteShape {
  op: Operation;
  paramNames: Set<string>;
  queryNames: Set<string>;
}

const shapeOf = (op: Operation): RouteShape => ({
  op, paramNames: new Set(pathParams(op)), queryNames: new Set(Object.keys(fieldsOf(op.query).properties)),
});

/** Splits tool arguments into params, query and body by the operation's schemas. */
function splitArguments({ op, paramNames, queryNames }: RouteShape, args: Record<string, unknown>): RawInput {
  const aliases = op.mcpAliases ?? {};
  const input: RawInput = { params: {}, query: {}, body: undefined };
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (paramNames.has(name)) input.params[name] = value;
    else if (aliases[name] && paramNames.has(aliases[name])) input.params[aliases[name]] ??= value;
    else if (queryNames.has(name)) input.query[name] = value;
    // Everything else is body; a name the body does not know is refused there (unknownFields).
    else body[name] = value;
  }
  for (const name of paramNames) {
    const value = input.params[name];
    if (typeof value !== 'string' || value.length === 0) {
      throw new ApiError('VALIDATION_FAILED', { field: name }, { message: `${name} is required and must be a non-empty string.` });
    }
  }
  if (Object.keys(body).length > 0 || op.body) input.body = body;
  return input;
}

export function buildTools(operations: Operation[]): McpTool[] {
  return operations.map((op) => {
    const twin = byKeyTwin(op, operations);
    const primary = shapeOf(op);
    const byKeys = twin && shapeOf(twin);
    return {
      definition: definitionOf(op, twin),
      resolve(args) {
        const shape = byKeys && [...byKeys.paramNames].every((name) => args[name] !== undefined) ? byKeys : primary;
        return { op: shape.op, input: splitArguments(shape, args) };
      },
    };
  });
}
