import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWsx } from '../support/cli.js';
import { ACME, GLOBEX } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * `wsx session list|revoke`: the browser sessions people signed in with, listed without
 * their secrets, and ended one by one or all of a person's, from the next request on.
 */

let h: Harness;
const PUBLIC_URL = 'http://127.0.0.1:8080';

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
});
afterAll(() => h.close());

const wsx = (...args: string[]) => runWsx(h.database, args, { WSX_PUBLIC_URL: PUBLIC_URL });

/** Signs `user` of `workspace` in through a fresh `wsx login-link`: answers the session cookie. */
async function signIn(user: string, workspace = 'acme'): Promise<string> {
  const run = await wsx('login-link', '--workspace', workspace, '--user', user, '--json');
  expect(run.code, run.stderr).toBe(0);
  const response = await h.app.inject({ url: new URL(JSON.parse(run.stdout).url).pathname });
  expect(response.statusCode).toBe(303);
  return String(response.headers['set-cookie']).split(';')[0];
}

/** Whether the cookie still opens the connectors page. */
const opens = async (cookie: string) =>
  (await h.app.inject({ url: '/settings/connectors', headers: { cookie } })).statusCode === 200;

interface Listed {
  sessionId: string;
  user: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

async function listed(...extra: string[]): Promise<Listed[]> {
  const run = await wsx('session', 'list', '--workspace', 'acme', '--json', ...extra);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout).sessions as Listed[];
}

describe('wsx session list', () => {
  it('lists the sessions in force with person, created, last seen and end; never a secret', async () => {
    const before = Date.now();
    const cookie = await signIn('alice');
    await signIn('bob');
    await signIn('gina', 'globex');

    const sessions = await listed();
    const alice = sessions.find((session) => session.user === 'alice')!;
    expect(alice).toEqual({
      sessionId: expect.stringMatching(/^ses_/),
      user: 'alice',
      createdAt: expect.any(String),
      lastSeenAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    // Unused, a session ends 12 hours after it was last seen (before its 7-day end).
    expect(Date.parse(alice.expiresAt) - Date.parse(alice.lastSeenAt)).toBe(12 * 3_600_000);
    expect(Date.parse(alice.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(sessions.map((session) => session.user)).not.toContain('gina');
    expect((await listed('--user', 'bob@acme.test')).every((session) => session.user === 'bob')).toBe(true);

    const table = await wsx('session', 'list', '--workspace', 'acme');
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^SESSION +USER +CREATED +LAST SEEN +EXPIRES$/);
    expect(table.stdout).toMatch(new RegExp(`^${alice.sessionId} +alice +\\S+ +\\S+ +\\S+$`, 'm'));
    // Neither the cookie's secret nor its hash is shown.
    const secret = cookie.split('=')[1];
    for (const output of [table.stdout, JSON.stringify(sessions)]) {
      expect(output).not.toContain(secret);
      expect(output).not.toMatch(/[0-9a-f]{64}/);
    }
  });

  it('leaves out sessions signed out, idle too long or over', async () => {
    const signedOut = await signIn('carol');
    const page = await h.app.inject({ url: '/settings/connectors', headers: { cookie: signedOut } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1];
    const out = await h.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { cookie: signedOut, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf }).toString(),
    });
    expect(out.statusCode).toBe(200);
    expect(await listed('--user', 'carol')).toEqual([]);

    await signIn('carol');
    await signIn('carol');
    const [idle, over] = await listed('--user', 'carol');
    const sessions = h.database.db.updateTable('browser_sessions');
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    await sessions
      .set({ last_seen_at: ago(13 * 3_600_000) })
      .where('id', '=', idle.sessionId)
      .execute();
    await h.database.db
      .updateTable('browser_sessions')
      .set({ expires_at: ago(1000) })
      .where('id', '=', over.sessionId)
      .execute();
    expect(await listed('--user', 'carol')).toEqual([]);
    const empty = await wsx('session', 'list', '--workspace', 'acme', '--user', 'carol');
    expect(empty.stdout).toBe('No browser sessions in workspace "acme" for user "carol".');
  });

  it('names what is wrong with the workspace or the user', async () => {
    const noWorkspace = await wsx('session', 'list', '--workspace', 'nope');
    expect(noWorkspace).toMatchObject({ code: 1, stderr: 'wsx: no workspace with slug "nope"' });
    const noUser = await wsx('session', 'list', '--workspace', 'acme', '--user', 'ghost');
    expect(noUser.code).toBe(1);
    expect(noUser.stderr).toContain('no user "ghost" in workspace "acme"');
  });
});

describe('wsx session revoke', () => {
  it('ends one session by id: its browser is signed out from the next request', async () => {
    const kept = await signIn('alice');
    const ended = await signIn('alice');
    const sessions = await listed('--user', 'alice');
    const target = sessions[0];
    expect(await opens(ended)).toBe(true);

    const run = await wsx('session', 'revoke', target.sessionId, '--workspace', 'acme');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`Ended session ${target.sessionId} in workspace "acme"; its browser is signed out.`);
    expect(await opens(ended)).toBe(false);
    expect(await opens(kept)).toBe(true);
    expect((await listed()).map((session) => session.sessionId)).not.toContain(target.sessionId);

    // Ended already, unknown, or another workspace's: nothing to end.
    for (const [id, workspace] of [
      [target.sessionId, 'acme'],
      ['ses_unknown', 'acme'],
      [sessions[1].sessionId, 'globex'],
    ]) {
      const again = await wsx('session', 'revoke', id, '--workspace', workspace);
      expect(again.code, `${id} in ${workspace}`).toBe(1);
      expect(again.stderr).toBe(`wsx: no session "${id}" in force in workspace "${workspace}" (see wsx session list)`);
    }
    expect(await opens(kept)).toBe(true);
  });

  it('ends every session of a person with --user, and only theirs', async () => {
    const bobs = [await signIn('bob'), await signIn('bob')];
    const carol = await signIn('carol');
    const open = (await listed('--user', 'bob')).length;
    const run = await wsx('session', 'revoke', '--workspace', 'acme', '--user', 'bob');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      `Ended ${open} browser sessions of user "bob" in workspace "acme"; their browsers are signed out.`,
    );
    for (const cookie of bobs) expect(await opens(cookie)).toBe(false);
    expect(await opens(carol)).toBe(true);
    const none = await wsx('session', 'revoke', '--workspace', 'acme', '--user', 'bob');
    expect(none.stdout).toBe(
      'Ended 0 browser sessions of user "bob" in workspace "acme"; their browsers are signed out.',
    );
  });

  it('takes a session id or --user, exactly one', async () => {
    const neither = await wsx('session', 'revoke', '--workspace', 'acme');
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain('name the session to end');
    const both = await wsx('session', 'revoke', 'ses_x', '--workspace', 'acme', '--user', 'bob');
    expect(both).toMatchObject({ code: 1, stderr: 'wsx: give a session id or --user, not both' });
    const help = (await wsx('session', 'revoke', '--help')).stdout;
    expect(help).toContain('[sessionId]');
    expect(help).toContain('--user <user>');
    expect((await wsx('session', '--help')).stdout).toMatch(/list[\s\S]*revoke/);
  });
});
