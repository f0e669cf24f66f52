import { Type } from '@sinclair/typebox';
import { LabelList, Nullable, PageInfoSchema, PaginationQuery, TagList } from '../../operations/schema-helpers.js';
import { WorkLinkSchema } from '../meetings/work-links.schemas.js';

export const TopicStatusSchema = Type.Union(
  [Type.Literal('open'), Type.Literal('in-progress'), Type.Literal('resolved'), Type.Literal('closed')],
  { description: 'open (default), in-progress, resolved or closed.' },
);

export const TopicSchema = Type.Object({
  topicId: Type.String(), groupId: Type.String(), title: Type.String(), description: Nullable(Type.String()),
  status: TopicStatusSchema, tags: Type.Array(Type.String()), labels: Type.Array(Type.String()), sourceProjectId: Nullable(Type.String()),
  links: Type.Array(WorkLinkSchema), converted: Type.Boolean(), convertedIssueId: Nullable(Type.String()),
  createdAt: Type.String(), updatedAt: Type.String(),
});

// Target fields are loosely typed so every bad value answers its own code
// (INVALID_TARGET_TYPE, TARGET_REQUIRED) rather than VALIDATION_FAILED.
const TopicLinkInput = Type.Object({
  targetType: Type.Optional(Type.Unknown({ description: 'issue, project or agenda_item (INVALID_TARGET_TYPE otherwise).' })),
  targetId: Type.Optional(Type.Unknown({ description: 'Id of the target; targetId or targetKey is required (TARGET_REQUIRED).' })),
  targetKey: Type.Optional(Type.Unknown({ description: 'issueKey or projectKey (issue and project targets only).' })),
  teamKey: Type.Optional(Type.String({ description: 'Disambiguates a projectKey.' })),
}, { additionalProperties: false });

const topicFields = {
  title: Type.String({ description: 'Required on create (TITLE_REQUIRED); at most 500 characters, as an issue title.' }),
  description: Nullable(Type.String({ maxLength: 10_000 })),
  status: TopicStatusSchema,
  tags: TagList,
  labels: LabelList,
  sourceProjectId: Nullable(Type.String({ description: 'A project the caller can access; omitted with tags: the first linked project; null: none.' })),
  links: Type.Array(TopicLinkInput, { description: 'Work links; on update the list replaces the topic\'s links.' }),
};

export const CreateTopicBody = Type.Object({
  groupId: Type.String({ description: 'A discussion group the caller can see.' }),
  ...Type.Partial(Type.Object(topicFields)).properties,
});
export const UpdateTopicBody = Type.Partial(Type.Object(topicFields));
export const topicFieldCodes = { title: 'TITLE_REQUIRED' } as const;

export const SearchTopicsQuery = Type.Object({
  q: Type.Optional(Type.String({ description: 'Case-insensitive text in the title, description or a tag.' })),
  groupId: Type.Optional(Type.String()),
  status: Type.Optional(TopicStatusSchema),
  ...PaginationQuery,
});
export const TopicIdParams = Type.Object({ topicId: Type.String() });
export const TopicResponse = Type.Object({ topic: TopicSchema });
export const TopicListResponse = Type.Object({ topics: Type.Array(TopicSchema), pageInfo: PageInfoSchema });
