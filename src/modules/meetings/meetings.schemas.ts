import { LIMITS } from '../../core/limits.js';
import { Type } from '@sinclair/typebox';
import {
  alias,
  Description,
  NonBlank,
  Nullable,
  PageInfoSchema,
  PaginationQuery,
  PathParam,
  Ref,
  SearchText,
  Text,
  Title,
  Version,
} from '../../operations/schema-helpers.js';
import { ListOrderQueryFields, archivedDescription } from '../../operations/list-order-query.js';
import { WorkLinkSchema } from '../work-links/index.js';

const RecurrenceTypeSchema = Type.Union(['none', 'daily', 'weekly', 'biweekly', 'monthly'].map((v) => Type.Literal(v)));

export const MeetingSchema = Type.Object({
  meetingId: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  type: Type.String(),
  recurrenceType: Type.String(),
  startsAt: Nullable(Type.String()),
  endsAt: Nullable(Type.String()),
  teamId: Nullable(Type.String()),
  teamKey: Nullable(Type.String()),
  projectId: Nullable(Type.String()),
  projectKey: Nullable(Type.String()),
  archived: Type.Boolean(),
  links: Type.Array(WorkLinkSchema),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  version: Version(),
});

const meetingFields = {
  title: Title('Non-empty (MEETING_TITLE_REQUIRED), at most 500 characters.'),
  description: Nullable(Description()),
  type: NonBlank(Text('Free text, 1–50 characters; default "meeting".', LIMITS.meetingType)),
  recurrenceType: RecurrenceTypeSchema,
  startsAt: Nullable(Type.String({ description: 'ISO 8601 datetime with offset; required when recurring.' })),
  endsAt: Nullable(Type.String({ description: 'ISO 8601 datetime with offset, after startsAt.' })),
  teamId: Nullable(Ref()),
  teamKey: Nullable(Ref()),
  projectId: Nullable(Ref("The meeting takes the project's team.")),
  projectKey: Nullable(Ref('Needs teamKey when ambiguous.')),
  archived: Type.Boolean(),
};

export const MeetingBody = Type.Partial(Type.Object(meetingFields));
export const meetingFieldCodes = {
  title: 'MEETING_TITLE_REQUIRED',
  startsAt: 'INVALID_MEETING_TIME',
  endsAt: 'INVALID_MEETING_TIME',
  archived: 'INVALID_ARCHIVE_STATE',
} as const;

export const ListMeetingsQuery = Type.Object({
  teamId: Type.Optional(Ref()),
  teamKey: Type.Optional(Ref()),
  projectId: Type.Optional(Ref()),
  projectKey: Type.Optional(Ref()),
  type: Type.Optional(Text('Exact meeting type.', LIMITS.meetingType)),
  recurrenceType: Type.Optional(RecurrenceTypeSchema),
  archived: Type.Optional(Type.Boolean({ description: archivedDescription('meetings') })),
  view: Type.Optional(
    alias(
      Type.Union([Type.Literal('active'), Type.Literal('archived')], {
        description: 'archived: same as archived=true; active: same as archived=false.',
      }),
      'archived',
    ),
  ),
  q: SearchText('Case-insensitive match on title and description.'),
  ...ListOrderQueryFields('meetings', { hidesArchived: true }),
  ...PaginationQuery,
});

export const MeetingIdParams = Type.Object({ meetingId: PathParam() });
export const MeetingResponse = Type.Object({ meeting: MeetingSchema });
export const MeetingListResponse = Type.Object({ meetings: Type.Array(MeetingSchema), pageInfo: PageInfoSchema });
