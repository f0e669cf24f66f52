import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/modules/auth/secrets.js';
import { AuthorizationRequestError, approveAuthorization } from '../../src/modules/oauth/authorization-requests.js';
import { listGrants } from '../../src/modules/oauth/grants.js';
import { WorkspaceFileError } from '../../src/modules/workspace-file/apply.js';
import { connectorFlow, type ConnectorTokens } from '../support/connector-flow.js';
import { freePort } from '../support/free-port.js';
import { ACME } from '../support/fixtures.js';
import { oatFor, startHarness, type Harness } from '../support/harness.js';

/**
 * Revocation sticks: a user-level `oauthTokens` entry reaches the tokens connectors were
 * issued (read access, expiry, revocation, refreshes included); `active: false` on a user
 * ends their tokens, connectors and browser sessions and keeps them from signing in and
 * approving until re-activated, which resurrects nothing; `wsx token revoke --oauth-user`
 * ends the person's browser sessions too. Over real HTTP, the way a browser and a client
 * connect (support/connector-flow.ts).
 */

let h: Harness;
let origin: string;
let flow: ReturnType<typeof connectorFlow>;
const ws = ACME.workspace;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  h = await startHarness([ACME], { publicUrl: origin, oauthRateLimitPerMinute: 0 });
  await h.app.listen({ host: '127.0.0.1', port });
  flow = connectorFlow(h, origin);
});
afterAll(() => h.close());

const person = (handle: string, extra: { active?: boolean } = {}) => ({
  handle,
  name: `${handle[0].toUpperCase()}${handle.slice(1)}`,
  email: `${handle}@acme.test`,
  ...extra,
});

const read = (token: string) => h.call('GET', '/api/external/projects', { token });
const write = (token: string) =>
  h.call('POST', '/api/external/issues', {
    token,
    body: { projectKey: 'API', teamKey: 'ENG', title: 'By a connector' },
  });

async function personOf(handle: string) {
  const row = await h.database.db
    .selectFrom('users')
    .select(['id', 'workspace_id'])
    .where('handle', '=', handle)
    .executeTakeFirstOrThrow();
  return { workspaceId: row.workspace_id, userId: row.id };
}

const grantsOf = async (handle: string) => listGrants(h.database.db, await personOf(handle));

describe('a user-level oauthTokens entry reaches connector tokens', () => {
  it('access: read keeps the person’s connectors to reading, refreshes and new approvals included', async () => {
    await h.apply({ workspace: ws, users: [person('dora')] });
    const connected = await flow.connect('dora');
    expect((await write(connected.tokens.access_token)).status).toBe(201);

    await h.apply({ workspace: ws, oauthTokens: [{ user: 'dora', access: 'read' }] });
    const refused = await write(connected.tokens.access_token);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('TOKEN_READ_ONLY');
    expect((await read(connected.tokens.access_token)).status).toBe(200);
    // `wsx token list` shows the level the token acts with.
    const listed = JSON.parse((await flow.wsx(['token', 'list', '--workspace', 'acme', '--json'])).stdout);
    const doras = listed.oauthTokens.filter((token: { user: string }) => token.user === 'dora');
    expect(doras.length).toBeGreaterThan(0);
    expect(doras.every((token: { access: string }) => token.access === 'read')).toBe(true);

    const refreshed = await flow.refresh(connected);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('read');
    const minted = refreshed.body as unknown as ConnectorTokens;
    expect((await write(minted.access_token)).body.code).toBe('TOKEN_READ_ONLY');
    expect((await read(minted.access_token)).status).toBe(200);

    // Approving a new connector while the ceiling holds gives a reading one too.
    const fresh = await flow.connect('dora', 'read write', connected.cookie);
    expect(fresh.tokens.scope).toBe('read');
    expect((await write(fresh.tokens.access_token)).body.code).toBe('TOKEN_READ_ONLY');

    // access: write lifts the ceiling: a token minted under it stays a reader, and the next
    // refresh is back to the scopes the connector was granted.
    await h.apply({ workspace: ws, oauthTokens: [{ user: 'dora', access: 'write' }] });
    expect((await write(fresh.tokens.access_token)).body.code).toBe('TOKEN_READ_ONLY');
    const lifted = await flow.refresh({ clientId: connected.clientId, tokens: minted });
    expect(lifted.body.scope).toBe('read write');
    expect((await write((lifted.body as unknown as ConnectorTokens).access_token)).status).toBe(201);
  });

  it('expiresAt stops the person’s connector tokens at that instant, and refreshes mint none after it', async () => {
    await h.apply({ workspace: ws, users: [person('eli')] });
    const connected = await flow.connect('eli');
    expect((await read(connected.tokens.access_token)).status).toBe(200);

    await h.apply({ workspace: ws, oauthTokens: [{ user: 'eli', expiresAt: '2020-01-01T00:00:00Z' }] });
    expect((await read(connected.tokens.access_token)).status).toBe(401);
    const refused = await flow.refresh(connected);
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    // A later instant: the refresh token, left unspent by the refusal, mints a token ending by then.
    const until = Date.now() + 10 * 60_000;
    await h.apply({ workspace: ws, oauthTokens: [{ user: 'eli', expiresAt: new Date(until).toISOString() }] });
    const refreshed = await flow.refresh(connected);
    expect(refreshed.status).toBe(200);
    const expiresIn = refreshed.body.expires_in as number;
    expect(expiresIn).toBeGreaterThan(0);
    expect(expiresIn).toBeLessThanOrEqual(600);
    const minted = (refreshed.body as unknown as ConnectorTokens).access_token;
    const stored = await h.database.db
      .selectFrom('oauth_tokens')
      .select('expires_at')
      .where('secret_hash', '=', hashSecret(minted))
      .executeTakeFirstOrThrow();
    expect(Date.parse(stored.expires_at!)).toBeLessThanOrEqual(until);
    expect((await read(minted)).status).toBe(200);
  });

  it('active: false revokes connectors (refresh tokens too) and ends the person’s browser sessions', async () => {
    await h.apply({ workspace: ws, users: [person('finn')] });
    const connected = await flow.connect('finn');
    expect((await flow.page('/settings/connectors', connected.cookie)).status).toBe(200);

    await h.apply({ workspace: ws, oauthTokens: [{ user: 'finn', active: false }] });
    expect((await read(connected.tokens.access_token)).status).toBe(401);
    expect((await flow.refresh(connected)).body.error).toBe('invalid_grant');
    expect(await grantsOf('finn')).toEqual([]);
    expect((await flow.page('/settings/connectors', connected.cookie)).status).toBe(401);

    // Revoking tokens is not deactivating: a new sign-in link still signs the person in.
    expect((await flow.page('/settings/connectors', await flow.signIn('finn'))).status).toBe(200);
  });
});

describe('users[].active: false deactivates a person', () => {
  it('ends every token, connector and session at once, even a credential the cache holds', async () => {
    const fileToken = oatFor('gus-file');
    await h.apply({ workspace: ws, users: [person('gus')], oauthTokens: [{ user: 'gus', secret: fileToken }] });
    const connected = await flow.connect('gus');
    const pending = await flow.pendingRequest();
    const shown = await flow.page(`/oauth/consent?request=${pending.requestId}`, connected.cookie);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await shown.text())![1];
    // Both credentials answered once, so the credential cache of this process holds them.
    for (const token of [connected.tokens.access_token, fileToken]) expect((await read(token)).status).toBe(200);

    await h.apply({ workspace: ws, users: [person('gus', { active: false })] });

    for (const token of [connected.tokens.access_token, fileToken]) expect((await read(token)).status).toBe(401);
    expect((await flow.refresh(connected)).body.error).toBe('invalid_grant');
    expect(await grantsOf('gus')).toEqual([]);
    // The session is gone: the pages ask to sign in, and an answer with the old form approves nothing.
    expect((await flow.page('/settings/connectors', connected.cookie)).status).toBe(401);
    const consent = await flow.page(`/oauth/consent?request=${pending.requestId}`, connected.cookie);
    expect(consent.status).toBe(401);
    expect(await consent.text()).toContain('Sign in needed');
    const answer = await flow.postForm(
      '/oauth/consent',
      { request: pending.requestId, csrf, decision: 'approve' },
      connected.cookie,
    );
    expect(answer.status).toBe(401);
    expect(await grantsOf('gus')).toEqual([]);
  });

  it('cannot sign in with a link (old or new) nor approve, until re-activated', async () => {
    await h.apply({ workspace: ws, users: [person('hal')] });
    const earlier = await flow.loginLink('hal');
    await h.apply({ workspace: ws, users: [person('hal', { active: false })] });

    const used = await fetch(earlier, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(used.status).toBe(403);
    expect(used.headers.getSetCookie().some((cookie) => cookie.startsWith('wsx_session='))).toBe(false);
    expect(await used.text()).toContain('Account deactivated');

    const cli = await flow.wsx(['login-link', '--workspace', 'acme', '--user', 'hal']);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('user "hal" is deactivated in workspace "acme"');

    // The approval itself checks, whatever session the route was given.
    const pending = await flow.pendingRequest();
    await expect(
      approveAuthorization(h.database.db, pending.requestId, await personOf('hal'), ['read'], `${origin}/`),
    ).rejects.toSatisfy((error) => error instanceof AuthorizationRequestError && error.reason === 'user');
    expect(await grantsOf('hal')).toEqual([]);
  });

  it('stays deactivated when the file leaves active out; active: true re-activates and resurrects nothing', async () => {
    const fileToken = oatFor('ida-file');
    await h.apply({ workspace: ws, users: [person('ida')], oauthTokens: [{ user: 'ida', secret: fileToken }] });
    const connected = await flow.connect('ida');
    const deactivate = { workspace: ws, users: [person('ida', { active: false })] };
    await h.apply(deactivate);
    // Applying the same file again changes nothing and fails nothing.
    await h.apply(deactivate);
    await h.apply({ workspace: ws, users: [person('ida')], oauthTokens: [{ user: 'ida', secret: fileToken }] });
    expect((await flow.wsx(['login-link', '--workspace', 'acme', '--user', 'ida'])).code).toBe(1);

    await h.apply({ workspace: ws, users: [person('ida', { active: true })] });
    const cookie = await flow.signIn('ida');
    expect((await flow.page('/settings/connectors', cookie)).status).toBe(200);
    // What deactivation ended stays ended.
    for (const token of [connected.tokens.access_token, fileToken]) expect((await read(token)).status).toBe(401);
    expect((await flow.refresh(connected)).body.error).toBe('invalid_grant');
    expect((await flow.page('/settings/connectors', connected.cookie)).status).toBe(401);
    // A new connector works.
    const again = await flow.connect('ida', 'read write', cookie);
    expect((await write(again.tokens.access_token)).status).toBe(201);
  });

  it('refuses an active that is not a boolean, naming the entry', async () => {
    await expect(h.apply({ workspace: ws, users: [{ ...person('jo'), active: 'no' }] })).rejects.toSatisfy(
      (error) =>
        error instanceof WorkspaceFileError &&
        error.path === 'users[0].active' &&
        error.message === 'users[0].active: must be true or false',
    );
    const stored = await h.database.db.selectFrom('users').select('id').where('handle', '=', 'jo').execute();
    expect(stored).toEqual([]);
  });
});

describe('wsx token revoke --oauth-user', () => {
  it('ends the person’s browser sessions too, so none approves a new connector', async () => {
    await h.apply({ workspace: ws, users: [person('kai')] });
    const connected = await flow.connect('kai');
    const otherBrowser = await flow.signIn('kai');
    const pending = await flow.pendingRequest();

    const run = await flow.wsx(['token', 'revoke', '--workspace', 'acme', '--oauth-user', 'kai']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      'Revoked 1 OAuth token of user "kai" in workspace "acme"; requests with it are refused from now on.',
      'Ended 2 browser sessions of user "kai" in workspace "acme"; they approve no new connector.',
    ]);
    expect((await read(connected.tokens.access_token)).status).toBe(401);
    expect((await flow.refresh(connected)).body.error).toBe('invalid_grant');
    for (const cookie of [connected.cookie, otherBrowser]) {
      expect((await flow.page('/settings/connectors', cookie)).status).toBe(401);
      expect((await flow.page(`/oauth/consent?request=${pending.requestId}`, cookie)).status).toBe(401);
    }
    expect(await grantsOf('kai')).toEqual([]);
  });

  it('ends the sessions of a person who holds no token yet', async () => {
    await h.apply({ workspace: ws, users: [person('lea')] });
    const cookie = await flow.signIn('lea');
    const run = await flow.wsx(['token', 'revoke', '--workspace', 'acme', '--oauth-user', 'lea']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Revoked 0 OAuth tokens of user "lea"');
    expect(run.stdout).toContain('Ended 1 browser session of user "lea"');
    expect((await flow.page('/settings/connectors', cookie)).status).toBe(401);
  });
});
