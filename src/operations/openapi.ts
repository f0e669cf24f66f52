import type { TObject, TSchema } from '@sinclair/typebox';
import type { Operation } from './define.js';

/** Plain JSON Schema from a TypeBox schema (drops TypeBox's symbol metadata). */
const plain = (schema: TSchema): Record<string, unknown> =>
  JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

function parametersOf(schema: TSchema | undefined, location: 'path' | 'query') {
  const object = schema as TObject | undefined;
  if (!object?.properties) return [];
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    ...(property.description ? { description: property.description } : {}),
    schema: plain(property),
  }));
}

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error', 'code', 'details', 'suggestion'],
  properties: {
    error: { type: 'string', description: 'Human-readable message.' },
    code: { type: 'string', description: 'Machine-readable code; branch on this.' },
    details: { type: 'object', description: 'Context: the offending field, id or key.' },
    suggestion: { type: 'string', description: 'How to recover.' },
  },
};

/** OpenAPI 3.1 document generated from the operation catalog. */
export function buildOpenApiDocument(operations: Operation[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const status = String(op.successStatus ?? (op.method === 'POST' ? 201 : op.method === 'DELETE' ? 204 : 200));
    const success =
      status === '204'
        ? { description: 'No content' }
        : {
            description: 'Success',
            content: { 'application/json': { schema: op.response ? plain(op.response) : { type: 'object' } } },
          };
    const parameters = [...parametersOf(op.params, 'path'), ...parametersOf(op.query, 'query')];
    if (op.method === 'POST') {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header' as never,
        required: false,
        description: 'Replays the first result of a create; 1–255 visible ASCII characters.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      });
    }
    (paths[op.path] ??= {})[op.method.toLowerCase()] = {
      operationId: op.id,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      ...(parameters.length ? { parameters } : {}),
      ...(op.body
        ? { requestBody: { required: false, content: { 'application/json': { schema: plain(op.body) } } } }
        : {}),
      responses: {
        [status]: success,
        default: {
          description: 'Error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'wsx — Workspace Execution External API',
      version: '1.0.0',
      description:
        'JSON API for automation agents and backend clients of one workspace. Send `Authorization: Bearer <token>`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { apiKey: [] }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'svc_pat_… workspace token or svc_oat_… OAuth access token.',
        },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
      schemas: { Error: ERROR_SCHEMA },
    },
    paths,
  };
}
