import type { Operation } from '../operations/define.js';

/**
 * Which tools `/api/mcp` serves, declared here only. A toolset is a group of catalog tags
 * (`?toolsets=issues,planning`); the discovery tools (whoami, list_teams, …) are in every
 * selection. Without `toolsets`, the `default` set is served: the tools an agent needs for
 * everyday work, the required tools (docs/api.md, "MCP") among them, small enough to read
 * on every session. `all` is every tool.
 */

const TOOLSET_TAGS: Record<string, readonly string[]> = {
  issues: ['Issues', 'Sub-tasks'],
  planning: ['Projects', 'Issue containers', 'Milestones'],
  meetings: ['Meetings'],
  discussions: ['Discussions'],
  admin: ['Webhooks', 'Events'],
};

/** The tag of the tools every selection holds. */
const DISCOVERY_TAG = 'Discovery';

export const DEFAULT_TOOLSET = 'default';
export const ALL_TOOLSETS = 'all';

/** The names `toolsets` takes, in the order the documentation lists them. */
export const TOOLSET_NAMES: readonly string[] = [...Object.keys(TOOLSET_TAGS), DEFAULT_TOOLSET, ALL_TOOLSETS];

/**
 * The default set (discovery included): the required tools and the discovery tools, 26 in
 * all, whose list stays under 16 KB (test/mcp/mcp-toolsets.test.ts).
 */
export const DEFAULT_TOOLS: ReadonlySet<string> = new Set([
  'whoami',
  'list_teams',
  'list_users',
  'list_statuses',
  'list_tags',
  'list_projects',
  'get_project',
  'create_project',
  'list_issues',
  'get_issue',
  'create_issue',
  'update_issue',
  'evolve_issue_title',
  'list_comments',
  'add_comment',
  'link_issues',
  'list_subtasks',
  'create_subtask',
  'list_meetings',
  'create_meeting',
  'list_agenda_items',
  'create_agenda_item',
  'convert_agenda_item',
  'list_discussion_topics',
  'create_discussion_topic',
  'convert_discussion_topic',
]);

/** Whether one named toolset holds an operation's tool. */
export function inToolset(toolset: string, op: Operation): boolean {
  if (op.tag === DISCOVERY_TAG || toolset === ALL_TOOLSETS) return true;
  if (toolset === DEFAULT_TOOLSET) return DEFAULT_TOOLS.has(op.id);
  return TOOLSET_TAGS[toolset]?.includes(op.tag) ?? false;
}

/**
 * Refuses, when the server starts, a catalog this file does not describe: an operation
 * whose tag no toolset serves (its tool would be reachable only through `all`), or a
 * default tool that is not in the catalog.
 */
export function checkToolsets(operations: Operation[]): void {
  const served = new Set([DISCOVERY_TAG, ...Object.values(TOOLSET_TAGS).flat()]);
  const untagged = [...new Set(operations.map((op) => op.tag).filter((tag) => !served.has(tag)))];
  const ids = new Set(operations.map((op) => op.id));
  const missing = [...DEFAULT_TOOLS].filter((name) => !ids.has(name));
  if (untagged.length > 0 || missing.length > 0)
    throw new Error(
      `MCP toolsets out of date: tags no toolset serves: [${untagged.join(', ')}]; ` +
        `default tools not in the catalog: [${missing.join(', ')}]`,
    );
}
