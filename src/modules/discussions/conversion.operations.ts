import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import { ConversionResponse, ConvertTopicBody, conversionFieldCodes } from './conversion.schemas.js';
import { convertTopic } from './conversion.service.js';
import { TopicIdParams } from './topics.schemas.js';

export const conversionOperations: Operation[] = [
  defineOperation({
    id: 'convert_discussion_topic',
    method: 'POST',
    path: '/api/external/discussion/topics/{topicId}/convert',
    tag: 'Discussions',
    summary: 'Convert a topic to an issue (201); a repeat answers the existing issue with created: false (200).',
    params: TopicIdParams,
    body: ConvertTopicBody,
    errors: ['PROJECT_NOT_FOUND', 'PROJECT_REQUIRED', 'STATUS_NOT_FOUND', 'TEAM_NOT_FOUND'],
    answersExisting: true,
    fieldCodes: conversionFieldCodes,
    response: ConversionResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) => {
      const conversion = await convertTopic(ctx, params.topicId, body);
      return conversion.created ? created(conversion) : ok(conversion);
    },
  }),
];
