/**
 * The import rules of docs/architecture.md, checked by `npm run deps` (and in CI).
 *
 * Each folder of src/ is a layer and may import only the layers below it. From the top:
 * the process entry and the commands, the composition root that assembles the server, the
 * doors (MCP and the browser pages are built on the HTTP door), the API assembly (catalog,
 * OpenAPI), the business modules, the operation kernel, events (outbox and delivery), the
 * stores, and the framework-free kernel. Observability sits beside the stores.
 */
const BELOW = {
  main: ['cli'],
  cli: ['server', 'web', 'http', 'modules', 'db', 'core', 'config'],
  server: ['mcp', 'web', 'http', 'api', 'modules', 'operations', 'events', 'observability', 'db', 'core', 'config'],
  mcp: ['http', 'api', 'modules', 'operations', 'events', 'db', 'core', 'config'],
  web: ['http', 'api', 'modules', 'operations', 'db', 'core', 'config'],
  http: ['api', 'modules', 'operations', 'events', 'db', 'core', 'config'],
  api: ['modules', 'operations', 'events', 'db', 'core', 'config'],
  modules: ['operations', 'events', 'db', 'core', 'config'],
  operations: ['events', 'db', 'core', 'config'],
  events: ['db', 'core', 'config'],
  observability: ['db', 'core', 'config'],
  db: ['core', 'config'],
  core: ['config'],
  config: [],
};

/** The path pattern of a layer: a folder of src/, or one of its two top-level files. */
const layerPath = (layer) => (layer === 'main' || layer === 'config' ? `^src/${layer}\\.ts$` : `^src/${layer}/`);

const layerRules = Object.entries(BELOW).map(([layer, below]) => ({
  name: `layer-${layer}`,
  comment: `${layer} imports only ${below.length ? below.join(', ') : 'no other layer'} (docs/architecture.md)`,
  severity: 'error',
  from: { path: layerPath(layer) },
  to: {
    path: '^src/',
    pathNot: [layerPath(layer), ...below.map(layerPath)],
  },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular',
      comment: 'no file reaches itself through its imports',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      comment: 'no module (a folder of src/modules/) reaches itself through other modules',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/modules/[^/]+$' },
      to: { path: '^src/modules/[^/]+$', circular: true },
    },
    {
      name: 'module-entry-between-modules',
      comment: 'a module reaches another only through its public entry, index.ts',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'module-entry-from-outside',
      comment: 'code outside the modules reaches a module only through its public entry, index.ts',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/modules/' },
      to: { path: '^src/modules/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'no-repository-in-entry',
      comment: "a module's public entry never exposes its repository: only its services and pure helpers",
      severity: 'error',
      from: { path: '^src/modules/[^/]+/index\\.ts$' },
      to: { path: '\\.repository\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
