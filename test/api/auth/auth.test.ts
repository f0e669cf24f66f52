import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, GLOBEX, TOKENS } from '../../support/fixtures.js';
import { challengeOf, oatFor, patFor, startHarness, type Harness } from '../../support/harness.js';

let h: Harness;
let acme: Awaited<ReturnType<Harness['apply']>>;

beforeAll(async () => {
  h = await startHarness([ACME, GLOBEX]);
  acme = await h.apply(ACME);
});
afterAll(() => h.close());

const whoami = (headers: Record<string, string>) => h.call('GET', '/api/external', { headers });

describe('credential header forms', () => {
  const forms = {
    Bearer: (secret: string) => ({ authorization: `Bearer ${secret}` }),
    Token: (secret: string) => ({ authorization: `Token ${secret}` }),
    'X-API-Key': (secret: string) => ({ 'x-api-key': secret }),
  };

  for (const [form, headersFor] of Object.entries(forms)) {
    it(`accepts a workspace token as ${form}`, async () => {
      const reply = await whoami(headersFor(TOKENS.bot));
      expect(reply.status).toBe(200);
      expect(reply.body.principal).toEqual({ kind: 'api_token', id: 'api-token:bot' });
    });

    it(`accepts an OAuth token as ${form}`, async () => {
      const reply = await whoami(headersFor(TOKENS.alice));
      expect(reply.status).toBe(200);
      expect(reply.body.principal).toEqual({ kind: 'user', id: acme.users.alice });
    });
  }
});

describe('rejected credentials', () => {
  const rejected: Record<string, Record<string, string>> = {
    'no credential': {},
    'an empty Bearer': { authorization: 'Bearer ' },
    'an unsupported scheme': { authorization: `Basic ${TOKENS.admin}` },
    'a malformed token': { authorization: 'Bearer svc_pat_short' },
    'a token without a known prefix': { authorization: 'Bearer abcdefghijklmnopqrstuvwxyz0123456789ABCD' },
    'an unknown workspace token': { authorization: `Bearer ${patFor('nobody')}` },
    'an unknown OAuth token': { authorization: `Bearer ${oatFor('nobody')}` },
    'an unknown X-API-Key': { 'x-api-key': patFor('nobody') },
    'an inactive token': { authorization: `Bearer ${TOKENS.off}` },
    'an inactive token as X-API-Key': { 'x-api-key': TOKENS.off },
  };

  it('answers every failure with the same 401 body and WWW-Authenticate: Bearer', async () => {
    const baseline = await whoami({});
    expect(baseline.status).toBe(401);
    expect(baseline.body.code).toBe('UNAUTHORIZED');
    expect(Object.keys(baseline.body).sort()).toEqual(['code', 'details', 'error', 'suggestion']);
    for (const [label, headers] of Object.entries(rejected)) {
      const reply = await whoami(headers);
      expect(reply.status, label).toBe(401);
      expect(reply.headers['www-authenticate'], label).toBe(challengeOf('/api/external'));
      expect(reply.body, label).toEqual(baseline.body);
    }
  });

  it('refuses an inactive token on every route, reads and writes alike', async () => {
    const list = await h.call('GET', '/api/external/projects', { token: TOKENS.off });
    const create = await h.call('POST', '/api/external/projects', { token: TOKENS.off, body: { name: 'Never' } });
    expect(list.status).toBe(401);
    expect(create.status).toBe(401);
    expect(create.body.code).toBe('UNAUTHORIZED');
  });
});

describe('revocation', () => {
  /**
   * Another process (the CLI beside the server, another server) changing a token: its write
   * never reaches this process's credential cache, which holds an entry at most
   * CREDENTIAL_TTL_MS (1 s); the revocation must show within that.
   */
  const setActive = async (table: 'api_tokens' | 'oauth_tokens', id: string, active: 0 | 1) => {
    await h.database.db.updateTable(table).set({ active }).where('id', '=', id).execute();
  };
  const withinOneSecond = { timeout: 1_500, interval: 50 };

  it('refuses a workspace token from the next request after this process deactivates it', async () => {
    const file = {
      workspace: ACME.workspace,
      tokens: [{ name: 'short-lived', secret: patFor('short-lived'), projects: '*' }],
    };
    await h.apply(file);
    expect((await h.call('GET', '/api/external', { token: patFor('short-lived') })).status).toBe(200);
    await h.apply({ ...file, tokens: [{ ...file.tokens[0], active: false }] });
    const refused = await h.call('GET', '/api/external', { token: patFor('short-lived') });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual((await h.call('GET', '/api/external')).body);
  });

  it('refuses a workspace token within a second after another process deactivates it', async () => {
    const token = await h.database.db
      .selectFrom('api_tokens')
      .select('id')
      .where('name', '=', 'idle')
      .where('workspace_id', '=', acme.workspaceId)
      .executeTakeFirstOrThrow();
    expect((await h.call('GET', '/api/external', { token: TOKENS.idle })).status).toBe(200);
    await setActive('api_tokens', token.id, 0);
    await expect
      .poll(async () => (await h.call('GET', '/api/external', { token: TOKENS.idle })).status, withinOneSecond)
      .toBe(401);
    const refused = await h.call('GET', '/api/external', { token: TOKENS.idle });
    await setActive('api_tokens', token.id, 1);
    expect(refused.body).toEqual((await h.call('GET', '/api/external')).body);
    await expect
      .poll(async () => (await h.call('GET', '/api/external', { token: TOKENS.idle })).status, withinOneSecond)
      .toBe(200);
  });

  it('refuses a revoked OAuth token with the same 401', async () => {
    const token = await h.database.db
      .selectFrom('oauth_tokens')
      .select('id')
      .where('user_id', '=', acme.users.alice)
      .executeTakeFirstOrThrow();
    await setActive('oauth_tokens', token.id, 0);
    await expect
      .poll(async () => (await h.call('GET', '/api/external', { token: TOKENS.alice })).status, withinOneSecond)
      .toBe(401);
    const refused = await h.call('GET', '/api/external', { token: TOKENS.alice });
    await setActive('oauth_tokens', token.id, 1);
    expect(refused.headers['www-authenticate']).toBe(challengeOf('/api/external'));
    expect(refused.body).toEqual((await h.call('GET', '/api/external')).body);
    await expect
      .poll(async () => (await h.call('GET', '/api/external', { token: TOKENS.alice })).status, withinOneSecond)
      .toBe(200);
  });
});

describe('app pages', () => {
  for (const path of ['/settings', '/board', '/discussion', '/settings/x', '/board/ENG?view=list']) {
    it(`${path} answers 401 browser_session_required with and without a credential`, async () => {
      for (const token of [undefined, TOKENS.admin, TOKENS.alice]) {
        const reply = await h.call('GET', path, { token });
        expect(reply.status).toBe(401);
        expect(reply.body.code).toBe('UNAUTHORIZED');
        expect(reply.body.details).toEqual({ reason: 'browser_session_required' });
        expect(reply.headers['www-authenticate']).toBe('Bearer');
      }
    });
  }

  it('does not treat paths that merely start with an app page name as app pages', async () => {
    const reply = await h.call('GET', '/settingsx');
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('ROUTE_NOT_FOUND');
  });
});

describe('credential before route', () => {
  it('answers 401 for an unknown API path without a credential', async () => {
    const reply = await h.call('GET', '/api/external/nothing-here');
    expect(reply.status).toBe(401);
    expect(reply.body.code).toBe('UNAUTHORIZED');
  });

  it('answers 404 ROUTE_NOT_FOUND for an unknown API path with a credential', async () => {
    const reply = await h.call('GET', '/api/external/nothing-here', { token: TOKENS.admin });
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('ROUTE_NOT_FOUND');
  });

  it('answers 404 ROUTE_NOT_FOUND for a known path with an unsupported method', async () => {
    const del = await h.call('DELETE', '/api/external/projects', { token: TOKENS.admin });
    const put = await h.call('PUT', '/api/external/teams', { token: TOKENS.admin, body: {} });
    expect(del.status).toBe(404);
    expect(del.body.code).toBe('ROUTE_NOT_FOUND');
    expect(put.status).toBe(404);
    expect(put.body.code).toBe('ROUTE_NOT_FOUND');
  });

  it('answers 401 for a known path with an unsupported method without a credential', async () => {
    const reply = await h.call('DELETE', '/api/external/projects');
    expect(reply.status).toBe(401);
  });
});

describe('principal in GET /api/external', () => {
  it('describes a workspace token as its queue identity', async () => {
    const reply = await h.call('GET', '/api/external', { token: TOKENS.bot });
    expect(reply.body.token).toEqual({ name: 'bot', assigneeId: 'api-token:bot' });
    expect(reply.body.principal).toEqual({ kind: 'api_token', id: 'api-token:bot' });
  });

  it('describes an OAuth caller as the approving user, with token null', async () => {
    const reply = await h.call('GET', '/api/external', { token: TOKENS.alice });
    expect(reply.body.token).toBeNull();
    expect(reply.body.principal).toEqual({ kind: 'user', id: acme.users.alice });
    expect(reply.body.principal.id).toMatch(/^usr_/);
  });

  it('scopes each credential to its own workspace', async () => {
    const own = await h.call('GET', '/api/external', { token: TOKENS.admin });
    const other = await h.call('GET', '/api/external', { token: TOKENS.globex });
    expect(own.body.workspace.slug).toBe('acme');
    expect(other.body.workspace.slug).toBe('globex');
    expect(other.body.workspace.id).not.toBe(own.body.workspace.id);
  });
});

describe('workspace isolation', () => {
  it('never shows ACME projects to a GLOBEX token, by id, key or list', async () => {
    for (const projectId of Object.values(acme.projects)) {
      const reply = await h.call('GET', `/api/external/projects/${projectId}`, { token: TOKENS.globex });
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('PROJECT_NOT_FOUND');
    }
    const byKey = await h.call('GET', '/api/external/projects/by-key/ENG/WEB', { token: TOKENS.globex });
    expect(byKey.status).toBe(404);
    expect(byKey.body.code).toBe('PROJECT_NOT_FOUND');
    const opsTeam = await h.call('GET', '/api/external/projects/by-key/OPS/INFRA', { token: TOKENS.globex });
    expect(opsTeam.status).toBe(404);
    expect(opsTeam.body.code).toBe('TEAM_NOT_FOUND');

    const sameKey = await h.call('GET', '/api/external/projects/by-key/ENG/API', { token: TOKENS.globex });
    expect(sameKey.status).toBe(200);
    expect(sameKey.body.project.name).toBe('Globex API');
    expect(sameKey.body.project.projectId).not.toBe(acme.projects['ENG/API']);

    const list = await h.call('GET', '/api/external/projects', { token: TOKENS.globex });
    expect(list.body.projects.map((p: { name: string }) => p.name)).toEqual(['Globex API']);
  });

  it('refuses GLOBEX writes to ACME projects as not found', async () => {
    const reply = await h.call('PATCH', `/api/external/projects/${acme.projects['ENG/API']}`, {
      token: TOKENS.globex,
      body: { name: 'Taken over' },
    });
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('PROJECT_NOT_FOUND');
    const still = await h.call('GET', `/api/external/projects/${acme.projects['ENG/API']}`, { token: TOKENS.admin });
    expect(still.body.project.name).toBe('Public API');
  });

  it('never lists ACME teams or users to a GLOBEX token', async () => {
    const teams = await h.call('GET', '/api/external/teams', { token: TOKENS.globex });
    expect(teams.body.teams.map((t: { name: string }) => t.name)).toEqual(['Globex Engineering']);
    const users = await h.call('GET', '/api/external/users', { token: TOKENS.globex });
    expect(users.body.users.map((u: { name: string }) => u.name)).toEqual(['Gina Gold']);
    expect(users.body.automationAgents.map((a: { name: string }) => a.name)).toEqual(['admin']);
    const statuses = await h.call('GET', `/api/external/statuses?teamId=${acme.teams.OPS}`, { token: TOKENS.globex });
    expect(statuses.status).toBe(404);
    expect(statuses.body.code).toBe('TEAM_NOT_FOUND');
  });
});

describe('project grants', () => {
  const keysSeenBy = async (token: string) => {
    const reply = await h.call('GET', '/api/external/projects', { token });
    return reply.body.projects
      .map((p: { teamKey: string; projectKey: string }) => `${p.teamKey}/${p.projectKey}`)
      .sort();
  };

  it('shows each token only its granted projects; "*" and OAuth see all', async () => {
    expect(await keysSeenBy(TOKENS.bot)).toEqual(['ENG/API']);
    expect(await keysSeenBy(TOKENS.idle)).toEqual([]);
    expect(await keysSeenBy(TOKENS.admin)).toEqual(['ENG/API', 'ENG/WEB', 'OPS/INFRA']);
    expect(await keysSeenBy(TOKENS.alice)).toEqual(['ENG/API', 'ENG/WEB', 'OPS/INFRA']);
  });

  it('answers projects outside the grant as not found, by id, key and on write', async () => {
    const infra = acme.projects['OPS/INFRA'];
    const byId = await h.call('GET', `/api/external/projects/${infra}`, { token: TOKENS.bot });
    const byKey = await h.call('GET', '/api/external/projects/by-key/OPS/INFRA', { token: TOKENS.bot });
    const patch = await h.call('PATCH', `/api/external/projects/${infra}`, {
      token: TOKENS.bot,
      body: { name: 'Mine now' },
    });
    const idle = await h.call('GET', `/api/external/projects/${acme.projects['ENG/API']}`, { token: TOKENS.idle });
    for (const reply of [byId, byKey, patch, idle]) {
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('PROJECT_NOT_FOUND');
    }
    const granted = await h.call('GET', `/api/external/projects/${acme.projects['ENG/API']}`, { token: TOKENS.bot });
    expect(granted.status).toBe(200);
  });

  it('hides ungranted projects from the users directory filter too', async () => {
    const reply = await h.call('GET', `/api/external/users?projectId=${acme.projects['OPS/INFRA']}`, {
      token: TOKENS.bot,
    });
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('PROJECT_NOT_FOUND');
  });
});
