import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/modules/workspace-file/apply.js';
import { ACME, TOKENS } from '../support/fixtures.js';
import { startHarness, type Harness } from '../support/harness.js';

/** The planning area's tools (sub-tasks, containers, milestones) through the MCP door. */

const PLANNING_TOOLS = [
  'list_subtasks',
  'create_subtask',
  'get_subtask',
  'update_subtask',
  'delete_subtask',
  'link_subtasks',
  'unlink_subtasks',
  'promote_subtask',
  'list_issue_containers',
  'list_milestones',
  'create_milestone',
  'get_milestone',
  'update_milestone',
  'delete_milestone',
  'list_milestone_comments',
  'add_milestone_comment',
];

let h: Harness;
let acme: ApplyResult;
let client: Client;

type ToolResult = { structuredContent: any; isError?: boolean; content: Array<{ text: string }> };
const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;
const errorCode = (result: ToolResult) => JSON.parse(result.content[0].text).code;

beforeAll(async () => {
  h = await startHarness([ACME]);
  acme = await h.apply(ACME);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const endpoint = new URL(
    `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/mcp?toolsets=issues,planning`,
  );
  client = new Client({ name: 'wsx-planning-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { Authorization: `Bearer ${TOKENS.admin}` } },
    }),
  );
});
afterAll(async () => {
  await client.close();
  await h.close();
});

describe('planning tools over MCP', () => {
  it('lists a tool for every planning operation, with no domain-coded field required', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of PLANNING_TOOLS) expect(byName.has(name), name).toBe(true);
    expect(byName.get('create_subtask')?.inputSchema.required ?? []).not.toContain('title');
    expect(byName.get('create_milestone')?.inputSchema.required ?? []).not.toContain('title');
  });

  it('runs sub-task tools by issue key and answers domain codes as tool errors', async () => {
    const issue = await h.call('POST', '/api/external/issues', {
      token: TOKENS.admin,
      body: { title: 'Parent', projectId: acme.projects['ENG/API'] },
    });
    const issueKey = issue.body.issue.issueKey;
    const a = await call('create_subtask', { issueKey, title: 'First step' });
    expect(a.isError).toBeFalsy();
    expect(a.structuredContent.subtask).toMatchObject({
      title: 'First step',
      parentIssueId: issue.body.issue.issueId,
      status: 'to-do',
    });
    const b = await call('create_subtask', { issueKey, title: 'Second step', status: 'in-progress' });
    const linked = await call('link_subtasks', {
      issueKey,
      subtaskId: b.structuredContent.subtask.subtaskId,
      type: 'blocked_by',
      targetSubtaskId: a.structuredContent.subtask.subtaskId,
    });
    expect(linked.structuredContent.link).toMatchObject({ type: 'blocked_by', isSatisfied: false });
    const listed = await call('list_subtasks', { issueKey });
    expect(listed.structuredContent.subtasks.map((s: { title: string }) => s.title)).toEqual([
      'First step',
      'Second step',
    ]);

    const blank = await call('create_subtask', { issueKey, title: '  ' });
    expect(blank.isError).toBe(true);
    expect(errorCode(blank)).toBe('SUBTASK_TITLE_REQUIRED');
    const promoted = await call('promote_subtask', {
      issueKey,
      subtaskId: a.structuredContent.subtask.subtaskId,
      statusMapping: { 'to-do': 'todo' },
    });
    expect(promoted.structuredContent.issue.source).toEqual({
      type: 'subtask',
      id: a.structuredContent.subtask.subtaskId,
    });
  });

  it('runs container and milestone tools', async () => {
    const containers = await call('list_issue_containers', { projectKey: 'API' });
    expect(containers.structuredContent.issueContainers.map((c: { name: string }) => c.name)).toEqual(['Launch']);
    const made = await call('create_milestone', {
      title: 'GA',
      issueContainerId: acme.containers['ENG/API/Launch'],
      status: 'at-risk',
    });
    const { milestoneId } = made.structuredContent.milestone;
    expect(
      (await call('add_milestone_comment', { milestoneId, body: 'Watch this' })).structuredContent.comment,
    ).toMatchObject({ milestoneId, authorApiTokenName: 'admin' });
    expect(
      (await call('get_milestone', { milestoneId })).structuredContent.milestone.activity.map(
        (a: { action: string }) => a.action,
      ),
    ).toEqual(['created', 'commented']);
    expect(
      (await call('list_milestones', { projectKey: 'API', status: 'at-risk' })).structuredContent.milestones,
    ).toHaveLength(1);
    const missing = await call('create_milestone', { title: 'Nowhere' });
    expect(errorCode(missing)).toBe('ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE');
  });
});
