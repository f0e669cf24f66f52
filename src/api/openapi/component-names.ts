import { Kind, type TSchema } from '@sinclair/typebox';
import * as discovery from '../../modules/discovery/discovery.schemas.js';
import * as discussionConversion from '../../modules/discussions/conversion.schemas.js';
import * as groups from '../../modules/discussions/groups.schemas.js';
import * as topics from '../../modules/discussions/topics.schemas.js';
import * as envelopes from '../../modules/events/envelopes.schemas.js';
import * as events from '../../modules/events/events.schemas.js';
import * as attachments from '../../modules/issues/attachments.schemas.js';
import * as comments from '../../modules/issues/comments.schemas.js';
import * as evolution from '../../modules/issues/evolution.schemas.js';
import * as issues from '../../modules/issues/issues.schemas.js';
import * as agendaGroups from '../../modules/meetings/agenda-groups.schemas.js';
import * as agendaItems from '../../modules/meetings/agenda-items.schemas.js';
import * as meetingConversion from '../../modules/meetings/conversion.schemas.js';
import * as meetings from '../../modules/meetings/meetings.schemas.js';
import * as owners from '../../modules/meetings/owners.schemas.js';
import * as settings from '../../modules/meetings/settings.schemas.js';
import * as containers from '../../modules/planning/containers.schemas.js';
import * as milestones from '../../modules/planning/milestones.schemas.js';
import * as subtasks from '../../modules/planning/subtasks.schemas.js';
import * as projects from '../../modules/projects/projects.schemas.js';
import * as webhooks from '../../modules/webhooks/webhooks.schemas.js';
import * as workLinks from '../../modules/work-links/work-links.schemas.js';
import { PageInfoSchema } from '../../operations/schema-helpers.js';

/**
 * The names of the document's component schemas: every resource, envelope and enum an area
 * exports from its `*.schemas.ts` keeps its export name (`IssueSchema` → `Issue`,
 * `IssueListResponse` stays). Request bodies, query strings and path parameters are not
 * components: they are described where they are used (bodies per operation, with the
 * fields that operation requires). A clash of two names is a mistake caught at start.
 */
const MODULES: Array<Record<string, unknown>> = [
  discovery,
  projects,
  issues,
  comments,
  evolution,
  attachments,
  workLinks,
  containers,
  milestones,
  subtasks,
  meetings,
  agendaGroups,
  agendaItems,
  owners,
  settings,
  meetingConversion,
  topics,
  groups,
  discussionConversion,
  webhooks,
  envelopes.WEBHOOK_EVENT_SCHEMAS,
  envelopes.CHANGES_SCHEMAS,
  events,
  { PageInfoSchema },
];

const INPUT_SUFFIXES = ['Body', 'Query', 'Params', 'Fields'];

const isSchema = (value: unknown): value is TSchema => typeof value === 'object' && value !== null && Kind in value;

export function componentNames(): Map<TSchema, string> {
  const names = new Map<TSchema, string>();
  const taken = new Set<string>();
  for (const module of MODULES) {
    for (const [exportName, value] of Object.entries(module)) {
      if (!isSchema(value) || INPUT_SUFFIXES.some((suffix) => exportName.endsWith(suffix))) continue;
      if (names.has(value)) continue;
      const name = exportName.replace(/Schema$/, '');
      if (taken.has(name)) throw new Error(`Two schemas export the component name ${name}.`);
      taken.add(name);
      names.set(value, name);
    }
  }
  return names;
}
