import { Type } from '@sinclair/typebox';
import { DateString, Nullable } from '../../operations/schema-helpers.js';
import { IssueSchema } from '../issues/issues.schemas.js';
import { TopicSchema } from './topics.schemas.js';

export const ConvertTopicBody = Type.Partial(Type.Object({
  projectId: Type.String({ description: 'Default: the topic\'s sourceProjectId, else its first linked project.' }),
  projectKey: Type.String({ description: 'With teamKey when the key is used in several teams.' }),
  teamKey: Type.String(),
  dueDate: DateString(),
  assigneeId: Nullable(Type.String({ description: 'usr_… or api-token:<name>.' })),
  statusKey: Type.String(),
  title: Type.String({ description: 'Default: the topic\'s title.' }),
}));
export const conversionFieldCodes = { title: 'TITLE_REQUIRED', dueDate: 'INVALID_SCHEDULE', assigneeId: 'ASSIGNEE_NOT_IN_WORKSPACE' } as const;

export const ConversionResponse = Type.Object({
  issue: Type.Union([IssueSchema, Type.Null()], { description: 'The issue made from the topic; null when it is in a project this credential cannot access.' }),
  topic: TopicSchema,
  created: Type.Boolean({ description: 'false when the topic was converted before (status 200).' }),
});
