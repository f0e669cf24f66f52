import type { FastifyInstance } from 'fastify';
import { catalog } from '../operations/catalog.js';
import { buildOpenApiDocument } from '../operations/openapi.js';
import { renderReferencePage } from './reference-page.js';

/** The OpenAPI document and a readable reference page, both served locally without auth. */
export function registerDocs(app: FastifyInstance): void {
  const document = buildOpenApiDocument(catalog);
  const documentJson = JSON.stringify(document);
  const page = renderReferencePage(document);
  app.get('/api/external/openapi.json', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(documentJson),
  );
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
}
