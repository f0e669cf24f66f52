import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../src/operations/catalog.js';
import { startHarness, type Harness } from './support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /api/external/openapi.json', () => {
  it('answers an OpenAPI 3.1 document without auth', async () => {
    const reply = await h.call('GET', '/api/external/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(reply.body.openapi).toBe('3.1.0');
    expect(reply.body.info.title).toEqual(expect.any(String));
    expect(reply.body.components.schemas.Error.required).toEqual(['error', 'code', 'details', 'suggestion']);
  });

  it('describes every operation of the catalog under its path and method, with its id', async () => {
    const { paths } = (await h.call('GET', '/api/external/openapi.json')).body;
    for (const op of catalog) {
      const described = paths[op.path]?.[op.method.toLowerCase()];
      expect(described, `${op.method} ${op.path}`).toBeDefined();
      expect(described.operationId).toBe(op.id);
      expect(described.tags).toEqual([op.tag]);
    }
    const operationIds = catalog.map((op) => op.id);
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it('documents path and query parameters, request bodies, Idempotency-Key and error responses', async () => {
    const { paths } = (await h.call('GET', '/api/external/openapi.json')).body;
    const createProject = paths['/api/external/projects'].post;
    expect(createProject.requestBody.content['application/json'].schema.properties.name).toBeDefined();
    expect(createProject.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]),
    );
    expect(createProject.responses['201']).toBeDefined();
    expect(createProject.responses.default.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });

    const byKey = paths['/api/external/projects/by-key/{teamKey}/{projectKey}'].get;
    expect(
      byKey.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required]),
    ).toEqual([
      ['teamKey', 'path', true],
      ['projectKey', 'path', true],
    ]);
    const list = paths['/api/external/projects'].get;
    expect(list.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'limit', in: 'query', required: false })]),
    );
    expect(list.responses['200'].content['application/json'].schema.properties.pageInfo).toBeDefined();
  });
});

describe('GET /docs', () => {
  it('answers a readable HTML reference page without auth, naming every route', async () => {
    const reply = await h.app.inject({ method: 'GET', url: '/docs' });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^text\/html/);
    expect(reply.body).toMatch(/^<!doctype html>/i);
    for (const op of catalog) {
      expect(reply.body, op.path).toContain(`<code>${op.path}</code>`);
      expect(reply.body, op.id).toContain(op.id);
    }
    expect(reply.body).toContain('/api/external/openapi.json');
  });
});
