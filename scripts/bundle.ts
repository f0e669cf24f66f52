/**
 * `npm run build`, second step: bundles the compiled program (dist/main.js and everything it
 * imports) into dist/wsx.js and a few chunks, which `npm start` and the `wsx` executable run.
 *
 * Why: Node.js loads an ES module file by file (resolve, stat, read, compile, link), and a
 * start loaded over 900 of them (wsx's own and Kysely's several hundred each): the first
 * `/healthz` came about twice as late as from the bundle (docs/performance.md).
 *
 * What goes in: wsx's own modules and the plain libraries named in BUNDLED, with whatever
 * they import. Everything else stays a package that Node.js loads from node_modules at run
 * time: native drivers (better-sqlite3), packages that find files of their own by path
 * (pino's transport workers, the API reference's assets), Fastify and its plugins, and the
 * packages wsx loads only on first use (the MCP SDK, openid-client, ioredis, yaml).
 */
import { rmSync } from 'node:fs';
import { build, type Plugin } from 'esbuild';

/** Packages wsx imports that are bundled: plain code, no files of their own read by path. */
const BUNDLED = new Set([
  'kysely',
  '@sinclair/typebox',
  '@opentelemetry/api',
  'prom-client',
  'commander',
  'ulid',
  'ipaddr.js',
]);

const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * A package imported by wsx's own code is bundled only if BUNDLED names it; one imported by
 * a bundled package is bundled with it (esbuild never looks inside an external package).
 */
const externals: Plugin = {
  name: 'wsx-externals',
  setup(bundler) {
    bundler.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || args.importer.includes('/node_modules/')) return undefined;
      return BUNDLED.has(packageOf(args.path)) ? undefined : { path: args.path, external: true };
    });
  },
};

// Chunk names carry a content hash: without this, every build's chunks stayed beside the
// last one's, and `npm pack` shipped them all.
rmSync('dist/chunks', { recursive: true, force: true });

await build({
  entryPoints: { wsx: 'dist/main.js' },
  outdir: 'dist',
  bundle: true,
  // What wsx imports only on first use (the serve command's MCP and OAuth doors, say) stays
  // in chunks of its own, loaded then, with the packages they import.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Bundled CommonJS packages call require(): an ES module has none, so the bundle makes one.
  banner: {
    js: "import { createRequire as __wsxRequireOf } from 'node:module';\nconst require = __wsxRequireOf(import.meta.url);",
  },
  // Stack traces map back to the TypeScript sources with `node --enable-source-maps`.
  sourcemap: 'linked',
  plugins: [externals],
  logLevel: 'warning',
});
