import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../core/errors.js';
import { catalog } from '../api/catalog.js';
import { buildOpenApiDocument } from '../api/openapi.js';
import { escapeHtml } from './html.js';

const DOCUMENT_PATH = '/api/external/openapi.json';

/**
 * Scalar's self-contained browser bundle (its page, its styles and the try-it client in one
 * file). The package exports only its Fastify plugin, so the bundle is found beside it.
 */
const scalarBundlePath = (): string =>
  join(dirname(createRequire(import.meta.url).resolve('@scalar/fastify-api-reference')), 'js', 'standalone.js');

/**
 * Everything that would reach past this server is switched off: the default fonts come from
 * a font CDN, the developer tools, the AI agent and the "open in client" button talk to
 * Scalar's services (and switch themselves on for 127.0.0.1), and no proxy is set, so a
 * try-it request goes from the browser straight to this origin.
 */
const scalarConfiguration = {
  url: DOCUMENT_PATH,
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  hideClientButton: true,
  documentDownloadType: 'json',
  authentication: { preferredSecurityScheme: 'bearer' },
};

/**
 * The page's policy: scripts only from this origin plus the one inline start-up script, by
 * its hash; requests (the document, try-it) only to this origin. Styles need
 * 'unsafe-inline': the bundle injects its stylesheet as <style> elements and sets style
 * attributes, without a nonce it could be given.
 */
const contentSecurityPolicy = (startScript: string): string =>
  [
    "default-src 'none'",
    `script-src 'self' 'sha256-${createHash('sha256').update(startScript).digest('base64')}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

interface DocsAssets {
  documentJson: string;
  bundle: Buffer;
  /** The bundle's file name under /docs, named by its content. */
  bundleFile: string;
  page: string;
  pagePolicy: string;
}

function buildDocsAssets(): DocsAssets {
  const document = buildOpenApiDocument(catalog);
  const bundle = readFileSync(scalarBundlePath());
  // Named by its content, so the browser may keep it for a year: a new bundle is a new URL.
  const bundleFile = `scalar-${createHash('sha256').update(bundle).digest('hex').slice(0, 16)}.js`;
  // JSON in a script element: "<" escaped so no text in it can close the element.
  const startScript = `Scalar.createApiReference('#app', ${JSON.stringify(scalarConfiguration).replace(/</g, '\\u003c')});`;
  const title = escapeHtml((document.info as { title: string }).title);
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript><h1>${title}</h1><p>This reference needs JavaScript. The OpenAPI document is at <a href="${DOCUMENT_PATH}">${DOCUMENT_PATH}</a>.</p></noscript>
<div id="app"></div>
<script src="/docs/${bundleFile}"></script>
<script>${startScript}</script>
</body>
</html>
`;
  return {
    documentJson: JSON.stringify(document),
    bundle,
    bundleFile,
    page,
    pagePolicy: contentSecurityPolicy(startScript),
  };
}

/**
 * The OpenAPI document and the interactive reference (navigation, search, try-it), all
 * served from this server without auth: the page at /docs, the bundle it loads under /docs.
 * They are built on the first request for any of them, not at start (building the document
 * and hashing the large bundle would otherwise delay the first /healthz).
 */
export function registerDocs(app: FastifyInstance): void {
  let built: DocsAssets | undefined;
  const assets = () => (built ??= buildDocsAssets());

  app.get(DOCUMENT_PATH, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(assets().documentJson),
  );
  app.get('/docs', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', assets().pagePolicy)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      // The page names the bundle by its content, so it must be fetched again after an upgrade.
      .header('cache-control', 'no-cache')
      .send(assets().page),
  );
  app.get<{ Params: { file: string } }>('/docs/:file', async (request, reply) => {
    const { bundle, bundleFile } = assets();
    // Any other name is an unknown page, as it would be without this route.
    if (request.params.file !== bundleFile)
      throw new ApiError('ROUTE_NOT_FOUND', { method: request.method, path: request.url.split('?')[0] });
    return reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(bundle);
  });
}
