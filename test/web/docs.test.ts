import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../src/api/catalog.js';
import { startHarness, type Harness } from '../support/harness.js';

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
    const { paths, components } = (await h.call('GET', '/api/external/openapi.json')).body;
    const createProject = paths['/api/external/projects'].post;
    expect(createProject.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateProjectRequest',
    });
    expect(components.schemas.CreateProjectRequest.properties.name).toBeDefined();
    expect(components.schemas.CreateProjectRequest.required).toEqual(['name']);
    expect(createProject.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]),
    );
    expect(createProject.responses['201']).toBeDefined();
    expect(createProject.responses['400'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(createProject.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });

    const byKey = paths['/api/external/projects/by-key/{teamKey}/{projectKey}'].get;
    expect(
      byKey.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required]),
    ).toEqual([
      ['teamKey', 'path', true],
      ['projectKey', 'path', true],
      ['fields', 'query', false],
      ['If-None-Match', 'header', false],
    ]);
    const list = paths['/api/external/projects'].get;
    expect(list.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'limit', in: 'query', required: false })]),
    );
    expect(list.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ProjectListResponse',
    });
    expect(components.schemas.ProjectListResponse.properties.pageInfo).toEqual({
      $ref: '#/components/schemas/PageInfo',
    });
  });
});

describe('GET /docs', () => {
  const page = () => h.app.inject({ method: 'GET', url: '/docs' });
  const bundlePathOf = (html: string): string => {
    const src = /<script src="(\/docs\/scalar-[0-9a-f]{16}\.js)"><\/script>/.exec(html)?.[1];
    expect(src, 'the page loads the reference bundle from this server').toBeDefined();
    return src!;
  };

  it('answers the interactive reference page without auth, loading only local files', async () => {
    const reply = await page();
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^text\/html/);
    expect(reply.body).toMatch(/^<!doctype html>/i);
    bundlePathOf(reply.body);
    expect(reply.body, 'no CDN, font or other remote address').not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]/i);
    // Without JavaScript the page still points at the document.
    expect(reply.body).toContain('<a href="/api/external/openapi.json">');
  });

  it('starts the reference on the local document with everything that reaches the internet off', async () => {
    const { body } = await page();
    const start = /<script>Scalar\.createApiReference\('#app', (.*)\);<\/script>/.exec(body)?.[1];
    expect(start).toBeDefined();
    const configuration = JSON.parse(start!);
    expect(configuration).toMatchObject({
      url: '/api/external/openapi.json',
      withDefaultFonts: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      hideClientButton: true,
      authentication: { preferredSecurityScheme: 'bearer' },
    });
    expect(configuration.proxyUrl).toBeUndefined();
  });

  it('sends a Content-Security-Policy that allows only this origin and the start script of the page', async () => {
    const reply = await page();
    const policy = String(reply.headers['content-security-policy']);
    const directives = new Map(
      policy.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    const inline = /<script>([^<]*)<\/script>/.exec(reply.body)![1];
    const hash = createHash('sha256').update(inline).digest('base64');
    expect(directives.get('script-src')).toEqual(["'self'", `'sha256-${hash}'`]);
    expect(policy, 'no remote source and no eval').not.toMatch(/https?:|\*|unsafe-eval/);
  });

  it('serves the bundle the page names as JavaScript, without auth, cached for good', async () => {
    const src = bundlePathOf((await page()).body);
    const reply = await h.app.inject({ method: 'GET', url: src });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^text\/javascript/);
    expect(reply.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.body).toContain('createApiReference');
    // Another bundle name is an unknown page, not an API path asking for a credential.
    expect((await h.app.inject({ method: 'GET', url: '/docs/scalar-0000000000000000.js' })).statusCode).toBe(404);
  });
});
