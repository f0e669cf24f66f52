import type { ErrorCode } from '../../core/errors.js';
import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import {
  CreateTopicBody,
  SearchTopicsQuery,
  TopicIdParams,
  TopicListResponse,
  TopicResponse,
  UpdateTopicBody,
  topicFieldCodes,
} from './topics.schemas.js';
import { createTopic, getTopic, searchTopics, updateTopicById } from './topics.service.js';
import { defineResource } from '../../operations/versioned.js';

/** Codes of the fields a create and an update of a topic both take. */
/** The versioned record its GET, PATCH and DELETE share (ETag, If-Match). */
const topicResource = defineResource({
  name: 'topic',
  table: 'discussion_topics',
  idField: 'topicId',
  read: (ctx, params: { topicId: string }) => getTopic(ctx, params.topicId),
});

const topicWriteErrors: ErrorCode[] = [
  'AGENDA_ITEM_NOT_FOUND',
  'DISCUSSION_GROUP_NOT_FOUND',
  'ISSUE_NOT_FOUND',
  'PROJECT_NOT_FOUND',
  'TAG_FIELD_CONFLICT',
];

const tag = 'Discussions';

export const topicOperations: Operation[] = [
  defineOperation({
    id: 'list_discussion_topics',
    method: 'GET',
    path: '/api/external/discussion/topics',
    tag,
    summary: 'Search topics the caller can see, newest first or by last change (sort=updatedAt).',
    description: 'Topics of the discussion groups the caller can see; q matches title, description and tags.',
    query: SearchTopicsQuery,
    errors: ['DISCUSSION_GROUP_NOT_FOUND'],
    response: TopicListResponse,
    run: async (ctx, { query }) => ok(await searchTopics(ctx, query)),
  }),
  defineOperation({
    id: 'create_discussion_topic',
    method: 'POST',
    path: '/api/external/discussion/topics',
    tag,
    summary: 'Create a topic in a discussion group the caller can see.',
    body: CreateTopicBody,
    errors: [...topicWriteErrors],
    requiredFields: ['title'],
    fieldCodes: topicFieldCodes,
    response: TopicResponse,
    successStatus: 201,
    run: async (ctx, { body }) => created({ topic: await createTopic(ctx, body) }),
  }),
  defineOperation({
    id: 'get_discussion_topic',
    resource: topicResource,
    method: 'GET',
    path: '/api/external/discussion/topics/{topicId}',
    tag,
    summary: 'One topic by id.',
    params: TopicIdParams,
    response: TopicResponse,
    run: async (ctx, { params }) => ok({ topic: await getTopic(ctx, params.topicId) }),
  }),
  defineOperation({
    id: 'update_discussion_topic',
    resource: topicResource,
    method: 'PATCH',
    path: '/api/external/discussion/topics/{topicId}',
    tag,
    summary: 'Update title, description, status, tags, sourceProjectId or links (links replaces the set).',
    params: TopicIdParams,
    body: UpdateTopicBody,
    errors: [...topicWriteErrors, 'UNSUPPORTED_ACTION'],
    fieldCodes: topicFieldCodes,
    response: TopicResponse,
    run: async (ctx, { params, body }) => ok({ topic: await updateTopicById(ctx, params.topicId, body) }),
  }),
];
