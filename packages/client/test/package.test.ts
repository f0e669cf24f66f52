import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The manifest as npm publishes it. scripts/check-client-package.sh packs and installs the
 * package for real; this catches the same mistakes before anything is built.
 */

interface Manifest {
  version: string;
  main: string;
  types: string;
  files: string[];
  scripts: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
}
const read = (path: string): Manifest => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Manifest;
const client = read('../package.json');
const server = read('../../../package.json');

describe('@wsx/client package.json', () => {
  it("has the server's version", () => {
    expect(client.version).toBe(server.version);
  });

  it('builds on pack and publishes the compiled dist only', () => {
    expect(client.scripts.prepack).toContain('npm run build');
    expect(client.scripts.build).toBe('tsc -p tsconfig.build.json');
    expect(client.files).toEqual(['dist/**/*.js', 'dist/**/*.d.ts']);
  });

  it('exports the types first, then the module, all from dist', () => {
    const entry = client.exports['.'];
    expect(entry).toEqual({ types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' });
    expect(Object.keys(entry as object)[0]).toBe('types');
    expect([client.main, client.types]).toEqual(['./dist/index.js', './dist/index.d.ts']);
  });
});
