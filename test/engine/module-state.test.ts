import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * State that outlives a request belongs to an object someone holds (the store, the app), not
 * to a module: module-level state is shared by every store and app of a process, invisible
 * at the call site, and kept between tests. This test finds every module-level `let` and
 * every module-level collection with a lower-case name (constants are UPPER_CASE) in src/,
 * and accepts only those below, each with the reason it is module-level.
 */
const ALLOWED: Record<string, string> = {
  'src/operations/validate.ts compiled':
    'compiled validators per schema object; the schemas are module constants, so this is a cache of derived code',
  'src/mcp/route.ts mcpModules': 'the MCP SDK, imported once on the first MCP request so a start does not load it',
  'src/events/receiver-address.ts hostLookup':
    'the resolver webhook addresses are checked with; tests replace it with one that answers their own names',
  'src/events/notifier.ts listeners': "this process's dispatchers, woken when a write of this process records an event",
  'src/modules/auth/credential-cache.ts liveCaches':
    'every credential cache of the process, emptied at once by a write to the credential tables',
  'src/db/storage.ts openFiles':
    'the SQLite files open in this process, so an I/O error raised anywhere can be checked against their disks',
  'src/modules/idempotency/holder.ts servingHere': 'the claim holders serving in this process, so none is judged gone',
};

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const ROOT = join(SRC, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `let x`, or `const x = new Map|Set|WeakMap|WeakSet`, at the start of a line (module level). */
const MODULE_STATE =
  /^(?:export )?(?:let ([A-Za-z_$][\w$]*)|const ([a-z_$][\w$]*)\s*(?::[^=]+)?=\s*new (?:Weak)?(?:Map|Set)\b)/;

function moduleState(): string[] {
  return sourceFiles(SRC).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => MODULE_STATE.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => `${relative(ROOT, file)} ${match[1] ?? match[2]}`),
  );
}

describe('module-level state in src/', () => {
  it('is only what the list allows, each entry with its reason', () => {
    expect(moduleState().sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  it('finds a module-level let and a lower-case collection, and passes constants', () => {
    expect(MODULE_STATE.exec('let turn = 0;')?.[1]).toBe('turn');
    expect(MODULE_STATE.exec('const stores = new WeakMap<object, number>();')?.[2]).toBe('stores');
    expect(MODULE_STATE.exec('const KNOWN = new Set<string>(TYPES);')).toBeNull();
    expect(MODULE_STATE.exec('  let local = 1;')).toBeNull();
  });
});
