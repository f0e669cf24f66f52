import { Kind, type TSchema } from '@sinclair/typebox';
import { discoverySchemas as discovery } from '../../modules/discovery/index.js';
import {
  conversionSchemas as discussionConversion,
  groupSchemas as groups,
  topicSchemas as topics,
} from '../../modules/discussions/index.js';
import { envelopeSchemas as envelopes, eventSchemas as events } from '../../modules/feed/index.js';
import {
  attachmentSchemas as attachments,
  commentSchemas as comments,
  evolutionSchemas as evolution,
  issueSchemas as issues,
} from '../../modules/issues/index.js';
import {
  agendaGroupSchemas as agendaGroups,
  agendaItemSchemas as agendaItems,
  conversionSchemas as meetingConversion,
  meetingSchemas as meetings,
  ownerSchemas as owners,
  settingsSchemas as settings,
} from '../../modules/meetings/index.js';
import {
  containerSchemas as containers,
  milestoneSchemas as milestones,
  subtaskSchemas as subtasks,
} from '../../modules/planning/index.js';
import { projectSchemas as projects } from '../../modules/projects/index.js';
import { webhookSchemas as webhooks } from '../../modules/webhooks/index.js';
import { workLinkSchemas as workLinks } from '../../modules/work-links/index.js';
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
