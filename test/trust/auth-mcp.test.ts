import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';
import { postMcp, toolCall } from '../support/raw-mcp.js';

/** /api/mcp: tool arguments named after Object.prototype members are unknown arguments, never prototype writes. */

const projectNames = async (h: Harness): Promise<string[]> =>
  (await h.call('GET', '/api/external/projects?limit=200', { token: TOKENS.admin })).body.projects.map(
    (p: { name: string }) => p.name,
  );

describe('prototype-named tool arguments', () => {
  let h: Harness;
  let apiProject: string;
  beforeAll(async () => {
    h = await startHarness([ACME]);
    apiProject = (await h.apply(ACME)).projects['ENG/API'];
  });
  afterAll(() => h.close());

  const cases: Array<[string, string, string, string[]]> = [
    [
      '__proto__ carrying a body field',
      'create_project',
      '{"__proto__":{"name":"Polluted"},"teamKey":"ENG"}',
      ['__proto__'],
    ],
    [
      'constructor.prototype',
      'create_project',
      '{"constructor":{"prototype":{"polluted":true}},"name":"Via constructor","teamKey":"ENG"}',
      ['constructor'],
    ],
    [
      'toString beside valid fields',
      'create_project',
      '{"toString":"x","name":"Via toString","teamKey":"ENG"}',
      ['toString'],
    ],
    [
      'several at once',
      'create_project',
      '{"hasOwnProperty":1,"valueOf":2,"name":"Via valueOf"}',
      ['hasOwnProperty', 'valueOf'],
    ],
    ['__proto__ on a tool without a body', 'list_teams', '{"__proto__":{"limit":1}}', ['__proto__']],
    ['constructor on a tool without a body', 'list_teams', '{"constructor":1}', ['constructor']],
  ];

  it.each(cases)(
    'refuses %s as unknown arguments with VALIDATION_FAILED naming them',
    async (_label, tool, args, unknown) => {
      const before = await projectNames(h);
      const reply = await postMcp(h, toolCall(1, tool, args));
      expect(reply.status).toBe(200);
      const result = reply.body.result;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { unknownFields: unknown },
      });
      expect(Object.keys(result.structuredContent).sort()).toEqual(['code', 'details', 'error', 'suggestion']);
      expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
      expect(await projectNames(h)).toEqual(before);
      // Nothing reached Object.prototype.
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).name).toBeUndefined();
    },
  );

  it('refuses them on tools with path parameters and aliases too', async () => {
    const byId = await postMcp(
      h,
      toolCall(2, 'get_project', `{"projectId":"${apiProject}","__proto__":{"projectId":"x"}}`),
    );
    expect(byId.body.result.structuredContent).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['__proto__'] },
    });
    const byKeys = await postMcp(
      h,
      toolCall(3, 'get_project', '{"teamKey":"ENG","projectKey":"API","constructor":"x"}'),
    );
    expect(byKeys.body.result.structuredContent).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['constructor'] },
    });
    const created = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: { title: 'Target', projectId: apiProject },
    });
    const alias = await postMcp(
      h,
      toolCall(4, 'update_issue', `{"issueKey":"${created.body.issue.issueKey}","toString":"x","priority":"high"}`),
    );
    expect(alias.body.result.structuredContent).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknownFields: ['toString'] },
    });
    const issue = await h.call('GET', `/api/external/issues/${created.body.issue.issueId}`, { token: TOKENS.admin });
    expect(issue.body.issue.priority).not.toBe('high');
  });

  it('still runs a call whose arguments are all known', async () => {
    const reply = await postMcp(h, toolCall(5, 'create_project', '{"name":"Clean","teamKey":"ENG"}'));
    expect(reply.body.result.isError).toBeUndefined();
    expect(reply.body.result.structuredContent.project).toMatchObject({ name: 'Clean', teamKey: 'ENG' });
  });
});
