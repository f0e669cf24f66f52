import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { installedPackages, ROOT, type Manifest } from '../support/installed-packages.js';

/**
 * npm 12 runs a dependency's install script only when package.json allows it (`allowScripts`);
 * a script left out is silently skipped, and for better-sqlite3 that means no SQLite driver.
 * So the allowed list must be exactly the installed packages that have one: a new dependency
 * with an install script fails here until it has been looked at and listed (docs/decisions/0054-packaging.md,
 * Packaging and quickstart), and an entry no package needs any more is dropped.
 */

const ALLOWED =
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> })
    .allowScripts ?? {};

/** npm's install-time scripts; a package with a binding.gyp and none of them gets `node-gyp rebuild`. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];
const hasInstallScript = (path: string, manifest: Manifest) =>
  INSTALL_SCRIPTS.some((name) => manifest.scripts?.[name]) || existsSync(join(path, 'binding.gyp'));

const withInstallScripts = () =>
  [
    ...new Set(
      installedPackages(false)
        // Workspace packages are the project's own code, not dependencies.
        .filter(({ path }) => path.includes('node_modules'))
        .filter(({ path, manifest }) => hasInstallScript(path, manifest))
        .map(({ manifest }) => manifest.name),
    ),
  ].sort();

it('allows the install script of every installed package that has one, and of no other', () => {
  const installed = withInstallScripts();
  expect(installed).toContain('better-sqlite3');
  expect(Object.keys(ALLOWED).sort()).toEqual(installed);
  expect(Object.values(ALLOWED).every((allowed) => allowed === true)).toBe(true);
});
