import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { expect, it } from 'vitest';
import { installedPackages, ROOT } from '../support/installed-packages.js';

/**
 * package.json states one Node.js range (`engines.node`). Every installed package must accept
 * all of it, or npm warns EBADENGINE on some version the range promises and that version may
 * not run. The installed tree is the one the lock file gives, overrides applied.
 */

const STATED = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines
  .node;

/** Each installed package, once, with the Node range it declares. */
const installedEngines = (omitDev: boolean): Array<{ id: string; node: unknown }> =>
  installedPackages(omitDev).map(({ path, manifest }) => ({
    id: path.slice(ROOT.length),
    node: manifest.engines?.node,
  }));

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
