import { Type } from '@sinclair/typebox';
import {
  Description,
  LabelList,
  List,
  Nullable,
  PageInfoSchema,
  PaginationQuery,
  PathParam,
  Ref,
  SearchText,
  serviceCheck,
  TagList,
  Title,
  Version,
} from '../../operations/schema-helpers.js';
import { ListOrderQueryFields } from '../../operations/list-order-query.js';
import { WorkLinkSchema } from '../work-links/index.js';
import { TOPIC_TARGET_TYPES } from './topic-links.service.js';

export const TopicStatusSchema = Type.Union(
  [Type.Literal('open'), Type.Literal('in-progress'), Type.Literal('resolved'), Type.Literal('closed')],
  { description: 'open (default), in-progress, resolved or closed.' },
);

export const TopicSchema = Type.Object({
  topicId: Type.String(),
  groupId: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  status: TopicStatusSchema,
  tags: Type.Array(Type.String()),
  labels: Type.Array(Type.String()),
  sourceProjectId: Nullable(Type.String()),
  links: Type.Array(WorkLinkSchema),
  converted: Type.Boolean(),
  convertedIssueId: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  version: Version(),
});

// The service checks each link's target (INVALID_TARGET_TYPE, TARGET_REQUIRED, not-found
// codes); a wrong JSON type answers the same codes through topicFieldCodes.
const TopicLinkInput = Type.Object(
  {
    targetType: Type.Optional(
      serviceCheck(Ref('issue, project or agenda_item (INVALID_TARGET_TYPE otherwise).'), { enum: TOPIC_TARGET_TYPES }),
    ),
    targetId: Type.Optional(Ref('Id of the target; targetId or targetKey is required (TARGET_REQUIRED).')),
    targetKey: Type.Optional(Ref('issueKey or projectKey (issue and project targets only).')),
    teamKey: Type.Optional(Ref('Disambiguates a projectKey.')),
  },
  { additionalProperties: false },
);

const topicFields = {
  title: Title('Required on create (TITLE_REQUIRED); at most 500 characters, as an issue title.'),
  description: Nullable(Description()),
  status: TopicStatusSchema,
  tags: TagList,
  labels: LabelList,
  sourceProjectId: Nullable(
    Ref('A project the caller can access; omitted with tags: the first linked project; null: none.'),
  ),
  links: List(TopicLinkInput, {
    description: "At most 100 work links; on update the list replaces the topic's links.",
  }),
};

export const CreateTopicBody = Type.Object({
  groupId: Ref('A discussion group the caller can see.'),
  ...Type.Partial(Type.Object(topicFields)).properties,
});
export const UpdateTopicBody = Type.Partial(Type.Object(topicFields));
export const topicFieldCodes = {
  title: 'TITLE_REQUIRED',
  'links.*.targetType': 'INVALID_TARGET_TYPE',
  'links.*.targetId': 'TARGET_REQUIRED',
  'links.*.targetKey': 'TARGET_REQUIRED',
} as const;

export const SearchTopicsQuery = Type.Object({
  q: SearchText('Case-insensitive text in the title, description or a tag.'),
  groupId: Type.Optional(Ref()),
  status: Type.Optional(TopicStatusSchema),
  ...ListOrderQueryFields('topics'),
  ...PaginationQuery,
});
export const TopicIdParams = Type.Object({ topicId: PathParam() });
export const TopicResponse = Type.Object({ topic: TopicSchema });
export const TopicListResponse = Type.Object({ topics: Type.Array(TopicSchema), pageInfo: PageInfoSchema });
