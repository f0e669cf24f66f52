import { readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where this wsx runs from. The code lives in src/cli/ (tsx), dist/ or dist/chunks/ (the
 * build, in a checkout) or node_modules/wsx/dist/… (an installed package); its
 * package.json is the nearest one up that names the package `wsx`.
 */
const here = fileURLToPath(import.meta.url);

interface PackageJson {
  name?: unknown;
  version?: unknown;
}

function readManifest(dir: string): PackageJson | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    return undefined;
  }
}

function findManifest(): PackageJson | undefined {
  for (let dir = dirname(here), depth = 0; depth < 6; dir = dirname(dir), depth++) {
    const manifest = readManifest(dir);
    if (manifest?.name === 'wsx') return manifest;
    if (dirname(dir) === dir) break;
  }
  return undefined;
}

/** The version of the wsx package this code belongs to (`wsx --version`). */
export function packageVersion(): string {
  const version = findManifest()?.version;
  return typeof version === 'string' ? version : 'unknown';
}

/** True when wsx runs from an installed package (under node_modules), not from a checkout. */
export const runsFromInstalledPackage = (file: string = here): boolean => file.split(sep).includes('node_modules');

/**
 * How a person runs a wsx command where this one runs: `npx wsx` where the package is
 * installed; in a checkout, `npm run wsx --` (`npx wsx` there would try to install the
 * checkout itself, the package has no bin link of its own).
 */
export const wsxCommand = (file: string = here): string =>
  runsFromInstalledPackage(file) ? 'npx wsx' : 'npm run wsx --';
