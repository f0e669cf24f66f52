/**
 * Renders the OpenAPI document as one self-contained HTML page (no scripts, no CDN):
 * operations grouped by area, each with its parameters and request body schema.
 */
const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

interface DocOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: { name: string; in: string; required: boolean; description?: string; schema: DocSchema }[];
  requestBody?: { content: { 'application/json': { schema: DocSchema } } };
  responses: Record<string, unknown>;
}

/** The parts of a JSON Schema the page shows. */
interface DocSchema {
  type?: string;
  anyOf?: DocSchema[];
  enum?: unknown[];
  const?: unknown;
  items?: DocSchema;
  properties?: Record<string, DocSchema>;
  required?: string[];
  description?: string;
}

interface DocDocument {
  info: { title: string; description: string };
  paths: Record<string, Record<string, DocOperation>>;
}

function typeOf(schema: DocSchema | undefined): string {
  if (!schema || typeof schema !== 'object') return 'any';
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' | ');
  if (schema.enum) return schema.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.type === 'array') return `${typeOf(schema.items)}[]`;
  return String(schema.type ?? 'any');
}

function renderFields(schema: DocSchema | undefined): string {
  if (!schema?.properties) return '';
  const required = new Set<string>(schema.required ?? []);
  const rows = Object.entries(schema.properties)
    .map(
      ([name, p]) =>
        `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? ' *' : ''}</td><td>${escapeHtml(typeOf(p))}</td><td>${escapeHtml(p.description ?? '')}</td></tr>`,
    )
    .join('');
  return `<table><tr><th>Body field</th><th>Type</th><th>Notes</th></tr>${rows}</table>`;
}

export function renderReferencePage(openApiDocument: Record<string, unknown>): string {
  // The document is built by operations/openapi.ts, so it has the shape read here.
  const document = openApiDocument as unknown as DocDocument;
  const groups = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<tr><td><code>${escapeHtml(p.name)}</code>${p.required ? ' *' : ''}</td><td>${p.in}</td><td>${escapeHtml(typeOf(p.schema))}</td><td>${escapeHtml(p.description ?? '')}</td></tr>`,
        )
        .join('');
      const html = `<section id="${escapeHtml(op.operationId)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(op.summary)}${op.description ? ` ${escapeHtml(op.description)}` : ''} <small>(operation / MCP tool <code>${escapeHtml(op.operationId)}</code>; success ${Object.keys(
        op.responses,
      )
        .filter((s) => s !== 'default')
        .join(', ')})</small></p>
${params ? `<table><tr><th>Parameter</th><th>In</th><th>Type</th><th>Notes</th></tr>${params}</table>` : ''}
${op.requestBody ? renderFields(op.requestBody.content['application/json'].schema) : ''}
</section>`;
      const tag = op.tags[0] ?? 'Other';
      groups.set(tag, [...(groups.get(tag) ?? []), html]);
    }
  }
  const nav = [...groups.keys()].map((tag) => `<a href="#tag-${escapeHtml(tag)}">${escapeHtml(tag)}</a>`).join(' · ');
  const body = [...groups.entries()]
    .map(([tag, ops]) => `<h2 id="tag-${escapeHtml(tag)}">${escapeHtml(tag)}</h2>${ops.join('\n')}`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(document.info.title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
code{font:13px ui-monospace,monospace;background:#f3f3f5;padding:1px 4px;border-radius:3px}table{border-collapse:collapse;margin:.5rem 0;width:100%}
td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}section{border-top:1px solid #eee;padding:.5rem 0}
.m{font:600 12px ui-monospace,monospace;padding:2px 6px;border-radius:3px;color:#fff}.get{background:#2b7}.post{background:#27c}.patch{background:#c82}.delete{background:#c33}</style></head>
<body><h1>${escapeHtml(document.info.title)}</h1><p>${escapeHtml(document.info.description)}</p>
<p>Errors always answer <code>{ error, code, details, suggestion }</code>. Machine-readable document: <a href="/api/external/openapi.json">/api/external/openapi.json</a>.</p>
<nav>${nav}</nav>${body}</body></html>`;
}
