import { Type } from '@sinclair/typebox';
import { DateString, Nullable, Ref, Title } from '../../operations/schema-helpers.js';
import { IssueSchema } from '../issues/index.js';
import { TopicSchema } from './topics.schemas.js';

export const ConvertTopicBody = Type.Partial(
  Type.Object({
    projectId: Ref("Default: the topic's sourceProjectId, else its first linked project."),
    projectKey: Ref('With teamKey when the key is used in several teams.'),
    teamKey: Ref(),
    dueDate: DateString(),
    assigneeId: Nullable(Ref('usr_… or api-token:<name>.')),
    statusKey: Ref(),
    title: Title("Default: the topic's title; at most 500 characters."),
  }),
);
export const conversionFieldCodes = {
  title: 'TITLE_REQUIRED',
  dueDate: 'INVALID_SCHEDULE',
  assigneeId: 'ASSIGNEE_NOT_IN_WORKSPACE',
} as const;

export const ConversionResponse = Type.Object({
  issue: Type.Union([IssueSchema, Type.Null()], {
    description: 'The issue made from the topic; null when it is in a project this credential cannot access.',
  }),
  topic: TopicSchema,
  created: Type.Boolean({ description: 'false when the topic was converted before (status 200).' }),
});
