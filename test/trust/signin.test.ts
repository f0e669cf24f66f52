import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import * as userDeactivation from '../../src/db/migrations/0026_user_deactivation.js';
import { sameOriginPath } from '../../src/web/next-path.js';
import { shellQuote } from '../../src/web/shell-quote.js';
import { runWsx } from '../support/cli.js';
import { freePort } from '../support/free-port.js';
import { ACME } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startUpstream, type Upstream } from '../support/oidc-upstream.js';

/**
 * Signing in cannot be turned against the person or the administrator: no `next`, however
 * spelled, sends the browser off this server after a sign-in (link, `wsx login-link`, the
 * upstream provider); the command the sign-in page asks an administrator to paste runs
 * nothing of the visited address; and the provider's email picks a user by one case fold
 * (ASCII letters only), so `K` (KELVIN SIGN) is not `k`. Over real HTTP, wsx against an
 * OpenID Connect provider in this process.
 */

let h: Harness;
let origin: string;
let upstream: Upstream;

/** Kim, and José (a stored address with a letter outside ASCII); Nell exists in two workspaces. */
const PEOPLE = {
  workspace: ACME.workspace,
  users: [
    { handle: 'kim', name: 'Kim Kelvin', email: 'kim@x.example' },
    { handle: 'jose', name: 'José', email: 'JOSÉ@x.example' },
    { handle: 'nell', name: 'Nell of Acme', email: 'nell@x.example' },
    { handle: 'otto', name: 'Otto', email: 'otto@x.example' },
  ],
};
const INITECH = {
  workspace: { slug: 'initech', name: 'Initech' },
  users: [{ handle: 'nell', name: 'Nell of Initech', email: 'NELL@x.example' }],
};

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  upstream = await startUpstream(`${origin}/login/oidc/callback`);
  const accounts: Record<string, string> = {
    'kelvin-sub': '\u212Aim@x.example',
    'kim-upper-sub': 'KIM@X.EXAMPLE',
    'jose-ascii-fold-sub': 'josÉ@X.EXAMPLE',
    'jose-lower-sub': 'josé@x.example',
    'nell-sub': 'nell@x.example',
    'otto-sub': 'otto@x.example',
  };
  for (const [sub, email] of Object.entries(accounts)) upstream.accounts.set(sub, { email, email_verified: true });
  const oidc = loadConfig({
    WSX_OIDC_ISSUER: upstream.issuer,
    WSX_OIDC_CLIENT_ID: upstream.clientId,
    WSX_OIDC_CLIENT_SECRET: upstream.clientSecret,
  }).oidc;
  h = await startHarness([ACME, PEOPLE, INITECH], { publicUrl: origin, oidc });
  await h.app.listen({ host: '127.0.0.1', port });
});
afterAll(async () => {
  await h.close();
  await upstream.close();
});

const request = (url: string, init: RequestInit = {}) => fetch(url, { redirect: 'manual', ...init });
const wsx = (args: string[]) => runWsx(h.database, args, { WSX_PUBLIC_URL: origin });

const cookieNamed = (response: Response, name: string): string | undefined =>
  response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0];

async function loginLink(user: string): Promise<string> {
  const run = await wsx(['login-link', '--workspace', 'acme', '--user', user, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout).url as string;
}

/** `next` values that resolve to `//evil.example/x` or read as another host in a browser. */
const HOSTILE_NEXTS = [
  '/.//evil.example/x',
  '/..//evil.example/x',
  '/a/..//evil.example/x',
  '/%2e%2e//evil.example/x',
  '/%2E%2E//evil.example/x',
  '/./%2e//evil.example/x',
  '/a/b/../..//evil.example/x',
  '/\\evil.example/x',
  '/.\\evil.example/x',
];

/** Where a Location sends a browser that is on this server. */
const landsOn = (location: string | null) => new URL(location ?? '', origin);

/** A Location a browser could take to another host (relative to this server or not). */
function expectStaysHere(location: string | null, what: string) {
  expect(location, what).not.toBeNull();
  expect(landsOn(location).origin, what).toBe(origin);
  expect(location, what).not.toMatch(/^\/[/\\]/);
}

describe('next after signing in stays on this server', () => {
  it('judges the path as normalised: dot segments and their encodings cannot make //host', () => {
    for (const next of HOSTILE_NEXTS) expect(sameOriginPath(next), next).toBeUndefined();
    // What the check is for still passes, normalised.
    expect(sameOriginPath('/oauth/consent?request=oar_x')).toBe('/oauth/consent?request=oar_x');
    expect(sameOriginPath('/settings/./connectors')).toBe('/settings/connectors');
    expect(sameOriginPath('/a/../settings/connectors')).toBe('/settings/connectors');
  });

  it('a sign-in link goes to the connectors page instead of any hostile next', async () => {
    for (const next of HOSTILE_NEXTS) {
      // Encoded as a link carries it, and as typed into the address bar.
      for (const query of [encodeURIComponent(next), next]) {
        const response = await request(`${await loginLink('kim')}?next=${query}`);
        expect(response.status, query).toBe(303);
        expectStaysHere(response.headers.get('location'), query);
        expect(response.headers.get('location'), query).toBe('/settings/connectors');
      }
    }
  });

  it('`wsx login-link --next` refuses them', async () => {
    for (const next of HOSTILE_NEXTS) {
      const run = await wsx(['login-link', '--workspace', 'acme', '--user', 'kim', '--next', next]);
      expect(run.code, next).toBe(1);
      expect(run.stderr, next).toContain('--next must be a path on this server');
    }
  });

  it('sign-in through the provider refuses them before the provider is asked (400, no flow, no Location)', async () => {
    for (const next of HOSTILE_NEXTS) {
      const response = await request(`${origin}/login/oidc?next=${encodeURIComponent(next)}`);
      expect(response.status, next).toBe(400);
      expect(response.headers.get('location'), next).toBeNull();
      expect(cookieNamed(response, 'wsx_oidc'), next).toBeUndefined();
    }
  });

  it('the sign-in page suggests no --next that leaves the server', async () => {
    const paths = [
      '/settings/.//evil.example/x',
      '/settings/%2e%2e//evil.example/x',
      '/settings/a/..//..//evil.example',
    ];
    for (const path of paths) {
      const response = await request(`${origin}${path}`, { headers: { accept: 'text/html' } });
      // A path that resolves outside the app pages is no page at all.
      expect([401, 404], path).toContain(response.status);
      if (response.status === 404) continue;
      const command = commandIn(await response.text());
      const next = /--next '([^']*)'/.exec(command)?.[1];
      if (next !== undefined) expectStaysHere(next, path);
    }
  });
});

/** The command the sign-in page shows, as the administrator copies it (HTML entities read back). */
function commandIn(html: string): string {
  const code = /<pre><code>([\s\S]*?)<\/code><\/pre>/.exec(html)![1];
  return code
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}

/**
 * Runs `command` in sh with `wsx` standing in as a function that writes its arguments, one a
 * line, and `cmd` as one that leaves a mark: answers the arguments wsx received and whether
 * anything in the command ran `cmd`.
 */
function pasteIntoShell(command: string): { args: string[]; ran: boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'wsx-paste-'));
  try {
    const script = `wsx() { printf '%s\\n' "$@" > args; }\ncmd() { echo ran > ran; }\n${command}\n`;
    execFileSync('sh', ['-c', script], { cwd: dir, stdio: 'pipe' });
    return {
      args: readFileSync(join(dir, 'args'), 'utf8').split('\n').slice(0, -1),
      ran: existsSync(join(dir, 'ran')),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the sign-in page’s command runs nothing of the visited address', () => {
  const visits = [
    "/settings/'$(cmd)'",
    "/settings/';cmd;'",
    '/settings/`cmd`',
    "/settings/'`cmd`'",
    '/settings/x;cmd',
    '/settings/$(cmd)',
    "/settings/it's",
    '/settings/%0Acmd%0A',
    "/settings/x?q='$(cmd)'&r=`cmd`",
  ];

  it('quotes the path so a shell reads it back unchanged', async () => {
    for (const visit of visits) {
      const response = await h.app.inject({ url: visit, headers: { accept: 'text/html' } });
      expect(response.statusCode, visit).toBe(401);
      const html = response.body;
      // HTML-escaped as before: no quote or markup from the address reaches the page raw.
      expect(html, visit).not.toMatch(/<pre><code>[^<]*'/);
      const command = commandIn(html);
      const pasted = pasteIntoShell(command);
      expect(pasted.ran, `${visit} → ${command}`).toBe(false);
      const next = pasted.args[pasted.args.indexOf('--next') + 1];
      expect(next, visit).toBe(sameOriginPath(visit));
      expect(pasted.args.slice(0, 4), visit).toEqual(['login-link', '--workspace', 'WORKSPACE', '--user']);
    }
  });

  it('shellQuote survives quotes, substitutions, separators and newlines', () => {
    for (const text of ["'$(cmd)'", '`cmd`', 'a;cmd', 'line\ncmd\n', "'\n'$(cmd)'\n'", "''", '', '\\\'"$HOME']) {
      const pasted = pasteIntoShell(`wsx ${shellQuote(text)}`);
      expect(pasted.ran, JSON.stringify(text)).toBe(false);
      expect(pasted.args.join('\n'), JSON.stringify(text)).toBe(text);
    }
  });
});

/**
 * Starts a sign-in at wsx as `account` and follows the provider's redirects until it sends
 * the browser back; answers wsx's answer to that callback.
 */
async function signInUpstream(account: string, start = '/login/oidc'): Promise<Response> {
  upstream.signInAs = account;
  const started = await request(`${origin}${start}`);
  expect(started.status).toBe(303);
  const flowCookie = cookieNamed(started, 'wsx_oidc')!;
  const jar = new Map<string, string>();
  let location = started.headers.get('location')!;
  while (location.startsWith(`${upstream.issuer}/`)) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await request(location, { headers: cookie ? { cookie } : {} });
    for (const set of response.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (value) jar.set(name, value);
      else jar.delete(name);
    }
    location = new URL(response.headers.get('location')!, location).href;
  }
  expect(location.startsWith(`${origin}/login/oidc/callback?`)).toBe(true);
  return request(location, { headers: { accept: 'text/html', cookie: flowCookie } });
}

/** The person a sign-in answer signed in, read from the connectors page of its session. */
async function signedInAs(answer: Response): Promise<string | undefined> {
  const session = cookieNamed(answer, 'wsx_session');
  if (!session) return undefined;
  const page = await request(`${origin}/settings/connectors`, { headers: { accept: 'text/html', cookie: session } });
  return /<header class="who">[\s\S]*?<\/header>/.exec(await page.text())?.[0];
}

describe('the provider’s email picks a user by one case fold', () => {
  it('is computed for every address already stored when the schema is brought up to date', async () => {
    const store = await startHarness([
      {
        workspace: { slug: 'older', name: 'Older' },
        users: [
          { handle: 'ann', name: 'Ann', email: 'Ann@OLDER.test' },
          { handle: 'kelvin', name: 'Kelvin', email: '\u212Aim@older.test' },
          { handle: 'none', name: 'No email' },
        ],
      },
    ]);
    try {
      const db = store.database.db as unknown as Kysely<unknown>;
      // Back to the schema before the key, then forward again: as a store made by an older version.
      await userDeactivation.down(db);
      await userDeactivation.up(db);
      const keys = await store.database.db
        .selectFrom('users')
        .select(['handle', 'email_key'])
        .orderBy('handle')
        .execute();
      expect(keys).toEqual([
        { handle: 'ann', email_key: 'ann@older.test' },
        { handle: 'kelvin', email_key: '\u212Aim@older.test' },
        { handle: 'none', email_key: null },
      ]);
    } finally {
      await store.close();
    }
  });

  it('K (KELVIN SIGN) does not sign in as kim: 403 and no session', async () => {
    const answer = await signInUpstream('kelvin-sub');
    expect(answer.status).toBe(403);
    expect(cookieNamed(answer, 'wsx_session')).toBeUndefined();
    expect(await answer.text()).toContain('No user of this server has the email address');
  });

  it('ASCII letters in any case still match; other letters only as stored', async () => {
    const kim = await signInUpstream('kim-upper-sub');
    expect(kim.status).toBe(303);
    expect(await signedInAs(kim)).toContain('Kim Kelvin');

    const jose = await signInUpstream('jose-ascii-fold-sub');
    expect(jose.status).toBe(303);
    expect(await signedInAs(jose)).toContain('José');

    // `é` is not `É`: outside ASCII nothing folds, so this is another address.
    const other = await signInUpstream('jose-lower-sub');
    expect(other.status).toBe(403);
    expect(cookieNamed(other, 'wsx_session')).toBeUndefined();
  });

  it('keeps a deactivated user out, and offers only the workspaces still theirs', async () => {
    await h.apply({ workspace: ACME.workspace, users: [{ handle: 'otto', name: 'Otto', active: false }] });
    const otto = await signInUpstream('otto-sub');
    expect(otto.status).toBe(403);
    expect(cookieNamed(otto, 'wsx_session')).toBeUndefined();
    expect(await otto.text()).toContain('Account deactivated');

    // Nell is a user of acme and of initech; deactivated in acme, she signs in to initech at once.
    await h.apply({ workspace: ACME.workspace, users: [{ handle: 'nell', name: 'Nell of Acme', active: false }] });
    const nell = await signInUpstream('nell-sub');
    expect(nell.status).toBe(303);
    expect(await signedInAs(nell)).toContain('Nell of Initech');
    const chosen = await signInUpstream('nell-sub', '/login/oidc?workspace=acme');
    expect(chosen.status).toBe(403);
    expect(await chosen.text()).toContain('Account deactivated');
  });
});
