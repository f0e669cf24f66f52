import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { expect, it } from 'vitest';

/**
 * package.json states one Node.js range (`engines.node`). Every installed package must accept
 * all of it, or npm warns EBADENGINE on some version the range promises and that version may
 * not run. The installed tree is the one the lock file gives, overrides applied.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STATED = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines
  .node;

interface LsNode {
  path?: string;
  dependencies?: Record<string, LsNode>;
}

/** Each installed package of the tree `npm ls` reports, once, with the Node range it declares. */
function installedEngines(omitDev: boolean): Array<{ id: string; node: unknown }> {
  const args = ['ls', '--all', '--json', '--long', ...(omitDev ? ['--omit=dev'] : [])];
  const ls = spawnSync('npm', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const tree = JSON.parse(ls.stdout) as LsNode;
  const found = new Map<string, unknown>();
  const walk = (node: LsNode) => {
    for (const child of Object.values(node.dependencies ?? {})) {
      // A package reached twice is one directory; a missing one (optional, other platform) has no path.
      if (!child.path || found.has(child.path)) continue;
      const manifest = JSON.parse(readFileSync(join(child.path, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        engines?: { node?: unknown };
      };
      found.set(child.path, manifest.engines?.node);
      walk(child);
    }
  };
  walk(tree);
  return [...found].map(([path, node]) => ({ id: path.slice(ROOT.length), node }));
}

/** The packages whose declared range leaves out some version of the stated one. */
function excluding(omitDev: boolean): string[] {
  return installedEngines(omitDev)
    .filter(({ node }) => node !== undefined)
    .filter(({ node }) => typeof node !== 'string' || !semver.validRange(node) || !semver.subset(STATED, node))
    .map(({ id, node }) => `${id}: ${JSON.stringify(node)}`);
}

it('states a valid range', () => {
  expect(semver.validRange(STATED)).not.toBeNull();
});

it('every production dependency accepts the whole stated Node.js range', () => {
  expect(excluding(true)).toEqual([]);
});

it('so does every development dependency', () => {
  expect(excluding(false)).toEqual([]);
});
