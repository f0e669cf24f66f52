import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../../../src/core/errors.js';
import { DELIVERED_EVENT_TYPES } from '../../../src/events/outbox.js';
import { catalog } from '../../../src/api/catalog.js';
import { openApiDocument } from '../../support/conformance.js';

/**
 * The OpenAPI document as a generator sees it: typed to the field, named schemas, required
 * fields, error answers per operation, examples that match their schemas, webhooks. (That
 * every answer of the suite matches it is checked on every call, in support/conformance.ts.)
 */

type Json = Record<string, any>;
const doc = openApiDocument as unknown as Json;
const schemas = doc.components.schemas as Record<string, Json>;
const operations = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
);

const resolve = (schema: Json): Json =>
  schema.$ref ? schemas[String(schema.$ref).replace('#/components/schemas/', '')] : schema;

/** Every schema node under `schema`, following `$ref`s once each. */
function* nodes(schema: unknown, seen = new Set<unknown>()): Generator<Json> {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return;
  seen.add(schema);
  const node = schema as Json;
  yield node;
  if (node.$ref) yield* nodes(resolve(node), seen);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const item of value) yield* nodes(item, seen);
    else if (typeof value === 'object') yield* nodes(value, seen);
  }
}

const ajv = new Ajv2020({ strict: false, validateFormats: true });
addFormats.default(ajv);
ajv.addSchema(doc, 'doc');
const validAgainst = (pointer: string, value: unknown): string | undefined => {
  const validate = ajv.getSchema(`doc#${pointer}`);
  if (!validate) return `no schema at ${pointer}`;
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
};
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

describe('the OpenAPI document', () => {
  it('types every success answer to the field: no operation answers a bare object', () => {
    for (const { path, method, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        if (!status.startsWith('2') || status === '204') continue;
        const schema = resolve(response.content['application/json'].schema);
        expect(Object.keys(schema.properties ?? {}).length, `${method} ${path} ${status}`).toBeGreaterThan(0);
      }
    }
    for (const node of nodes(doc.paths)) {
      if (node.type === 'object' && node.additionalProperties !== true) {
        expect(node.properties, JSON.stringify(node).slice(0, 200)).toBeDefined();
      }
    }
  });

  it('names a component schema for every resource and envelope', () => {
    for (const name of ['Issue', 'Project', 'Team', 'User', 'Status', 'Comment', 'Link', 'Subtask', 'Milestone']) {
      expect(schemas[name]?.type, name).toBe('object');
    }
    for (const name of ['Meeting', 'AgendaItem', 'Topic', 'Group', 'Webhook', 'Delivery', 'PageInfo']) {
      expect(schemas[name]?.type, name).toBe('object');
    }
    expect(doc.paths['/api/external/issues'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/IssueListResponse',
    });
    expect(schemas.IssueListResponse.properties.issues.items).toEqual({ $ref: '#/components/schemas/Issue' });
  });

  it('marks required fields, enums and formats', () => {
    expect(schemas.Issue.required).toEqual(expect.arrayContaining(['issueId', 'issueKey', 'title', 'createdAt']));
    expect(schemas.Issue.properties.priority.enum).toEqual(['none', 'low', 'medium', 'high', 'urgent']);
    expect(schemas.Issue.properties.createdAt.format).toBe('date-time');
    expect(schemas.Issue.properties.dueDate).toEqual({ type: ['string', 'null'], format: 'date' });
    expect(schemas.CreateIssueRequest.required).toEqual(['title']);
    expect(schemas.CreateWebhookRequest.required).toEqual(['url', 'events']);
    expect(schemas.CreateWebhookRequest.properties.url.format).toBe('uri');
    for (const { path, method, operation } of operations) {
      if (!operation.requestBody) continue;
      const body = resolve(operation.requestBody.content['application/json'].schema);
      for (const field of body.required ?? [])
        expect(body.properties[field], `${method} ${path} ${field}`).toBeDefined();
    }
  });

  it('documents the error body with every code as an enum, and each operation its 4xx answers', () => {
    expect(schemas.ErrorCode.enum).toEqual(Object.keys(ERROR_CATALOG));
    expect(schemas.Error.properties.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    for (const { path, method, operation } of operations) {
      const statuses = Object.keys(operation.responses);
      expect(statuses.filter((s) => s.startsWith('4')).length, `${method} ${path}`).toBeGreaterThan(0);
      expect(statuses).toEqual(expect.arrayContaining(['400', '401', '429']));
    }
    const getIssue = doc.paths['/api/external/issues/{issueId}'].get.responses;
    expect(Object.keys(getIssue['404'].content['application/json'].examples)).toEqual(['ISSUE_NOT_FOUND']);
    const createIssue = doc.paths['/api/external/issues'].post.responses;
    expect(Object.keys(createIssue['400'].content['application/json'].examples)).toEqual(
      expect.arrayContaining(['VALIDATION_FAILED', 'TITLE_REQUIRED', 'PROJECT_REQUIRED']),
    );
  });

  it('gives every operation an example request and answer that match their schemas', () => {
    for (const { path, method, operation } of operations) {
      const where = `/paths/${escape(path)}/${method}`;
      if (operation.requestBody) {
        const example = operation.requestBody.content['application/json'].example;
        expect(example, `${method} ${path} request`).toBeDefined();
        expect(validAgainst(`${where}/requestBody/content/application~1json/schema`, example), where).toBeUndefined();
      }
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const content = (response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response).content;
        if (!content) continue;
        const media = content['application/json'];
        const examples =
          media.example !== undefined ? [media.example] : Object.values(media.examples).map((e: any) => e.value);
        expect(examples.length, `${where} ${status}`).toBeGreaterThan(0);
        for (const example of examples) {
          const schema = status.startsWith('2')
            ? `${where}/responses/${status}/content/application~1json/schema`
            : '/components/schemas/Error';
          expect(validAgainst(schema, example), `${where} ${status}`).toBeUndefined();
        }
      }
    }
  });

  it('states what the validator and the services check of a request', () => {
    for (const { path, method, operation } of operations) {
      const body = operation.requestBody?.content['application/json'].schema;
      // Unknown body fields are refused, at any depth: every object of a body is closed.
      for (const node of body ? nodes(body) : []) {
        if (node.properties) expect(node.additionalProperties, `${method} ${path}`).toBe(false);
      }
    }
    const titles = [schemas.CreateIssueRequest, schemas.UpdateMeetingRequest, schemas.CreateDiscussionTopicRequest];
    for (const body of titles) expect(body.properties.title).toMatchObject({ minLength: 1, pattern: '\\S' });
    expect(schemas.CreateProjectRequest.properties.name).toMatchObject({ minLength: 1 });
    expect(schemas.LinkIssuesRequest.properties.type.enum).toEqual(['blocks', 'blocked_by', 'related']);
    expect(schemas.CreateWebhookRequest.properties.events.items.enum).toContain('*');
    expect(schemas.CreateExternalOwnerPresetRequest.properties.externalEmail.pattern).toBeDefined();
    const patch = doc.paths['/api/external/issues/{issueId}'].patch.parameters;
    expect(patch.find((p: Json) => p.name === 'If-Match').schema).toMatchObject({ maxLength: 2048 });
    const list = doc.paths['/api/external/issues'].get.parameters;
    expect(new RegExp(list.find((p: Json) => p.name === 'fields').schema.pattern).test('0000')).toBe(false);
  });

  it('writes every field of a component schema with its type (a nullable one as a type list)', () => {
    // Scalar reads a schema by its type, and logs "document validation errors" for a
    // component with a field that is a bare anyOf (fields of a named schema, or a null).
    for (const [name, schema] of Object.entries(schemas)) {
      for (const node of nodes(schema)) {
        for (const [field, property] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
          const typed = property.type !== undefined || property.$ref !== undefined;
          const refs = (property.anyOf ?? []).every((b: Json) => b.$ref !== undefined || b.type === 'null');
          expect(typed || (property.anyOf && refs), `${name}.${field}`).toBe(true);
        }
      }
    }
    expect(schemas.Issue.properties.description).toEqual({ type: ['string', 'null'] });
  });

  it('names each operation in a few words, its sentence opening the description', () => {
    for (const op of catalog) {
      const operation = doc.paths[op.path][op.method.toLowerCase()];
      expect(operation.summary.split(' ').length, op.id).toBeLessThanOrEqual(7);
      expect(operation.summary, op.id).not.toMatch(/[.;:]$/);
      expect(operation.description.startsWith(op.summary), op.id).toBe(true);
    }
    expect(doc.paths['/api/external/issues'].get.summary).toBe('List issues');
  });

  it('offers the three documented credential forms as security schemes', () => {
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      token: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
    expect(doc.security).toEqual([{ bearer: [] }, { token: [] }, { apiKey: [] }]);
  });

  it('lists every webhook event under `webhooks`, each body in the WebhookEvent union', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...DELIVERED_EVENT_TYPES, '*']);
    const union = schemas.WebhookEvent.oneOf.map((ref: Json) => resolve(ref).properties.type.const);
    expect(union).toEqual([...DELIVERED_EVENT_TYPES]);
    expect(
      resolve(doc.webhooks['issue.created'].post.requestBody.content['application/json'].schema).properties.data,
    ).toEqual({
      type: 'object',
      required: ['issue'],
      properties: { issue: { $ref: '#/components/schemas/Issue' } },
    });
  });

  it('describes every catalog operation once, under its own path and method', () => {
    for (const op of catalog) {
      expect(doc.paths[op.path]?.[op.method.toLowerCase()]?.operationId, op.id).toBe(op.id);
    }
    expect(operations.length).toBe(catalog.length);
  });
});
