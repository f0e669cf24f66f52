import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../support/installed-packages.js';

/**
 * The package ships its README and docs (package.json `files`), and an installed copy has
 * nothing else of the repository: a relative link in a shipped page must point at a file the
 * package also ships, or a reader of the installed docs follows it into nothing.
 */

const FILES = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;

/** package.json `files` holds plain paths and `*` / `**` globs; npm always adds README.md. */
const shippedPatterns = ['README.md', ...FILES].map(
  (pattern) =>
    new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*\//g, '(?:.*/)?')
        .replace(/\*/g, '[^/]*')}$`,
    ),
);
const isShipped = (path: string) => shippedPatterns.some((pattern) => pattern.test(path));

function markdownFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => path.endsWith('.md'));
}

const shippedPages = ['README.md', ...markdownFiles('docs'), ...markdownFiles('examples')].filter(isShipped);

/** Relative link targets of a Markdown page, without their #fragment. */
const relativeLinks = (text: string) =>
  [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1].split('#')[0])
    .filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target));

it('ships every file a shipped page links to', () => {
  expect(shippedPages).toContain('README.md');
  expect(shippedPages).toContain('docs/mcp.md');
  const broken: string[] = [];
  for (const page of shippedPages) {
    for (const target of relativeLinks(readFileSync(join(ROOT, page), 'utf8'))) {
      const path = relative(ROOT, join(ROOT, dirname(page), decodeURI(target)));
      const exists = existsSync(join(ROOT, path));
      // A link to a folder is fine when the folder's README ships.
      const shipped = isShipped(path) || isShipped(join(path, 'README.md'));
      if (!exists || !shipped) broken.push(`${page} → ${target}${exists ? ' (not shipped)' : ' (missing)'}`);
    }
  }
  expect(broken).toEqual([]);
});
