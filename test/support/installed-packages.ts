import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root folder (where package.json and node_modules are). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The fields of an installed package's package.json that the tests look at. */
export interface Manifest {
  name: string;
  version: string;
  engines?: { node?: unknown };
  scripts?: Record<string, string>;
}

interface LsNode {
  path?: string;
  dependencies?: Record<string, LsNode>;
}

/**
 * Each installed package of the tree `npm ls` reports (the one the lock file gives, overrides
 * applied), once, with its folder and manifest; `omitDev` leaves out what only development needs.
 */
export function installedPackages(omitDev: boolean): Array<{ path: string; manifest: Manifest }> {
  const args = ['ls', '--all', '--json', '--long', ...(omitDev ? ['--omit=dev'] : [])];
  const ls = spawnSync('npm', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const tree = JSON.parse(ls.stdout) as LsNode;
  const found = new Map<string, Manifest>();
  const walk = (node: LsNode) => {
    for (const child of Object.values(node.dependencies ?? {})) {
      // A package reached twice is one directory; a missing one (optional, other platform) has no path.
      if (!child.path || found.has(child.path)) continue;
      found.set(child.path, JSON.parse(readFileSync(join(child.path, 'package.json'), 'utf8')) as Manifest);
      walk(child);
    }
  };
  walk(tree);
  return [...found].map(([path, manifest]) => ({ path, manifest }));
}
