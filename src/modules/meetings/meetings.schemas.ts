import { Type } from '@sinclair/typebox';
import { Nullable, PageInfoSchema, PaginationQuery } from '../../operations/schema-helpers.js';
import { WorkLinkSchema } from './work-links.schemas.js';

const RecurrenceTypeSchema = Type.Union(['none', 'daily', 'weekly', 'biweekly', 'monthly'].map((v) => Type.Literal(v)));

export const MeetingSchema = Type.Object({
  meetingId: Type.String(), title: Type.String(), description: Nullable(Type.String()), type: Type.String(),
  recurrenceType: Type.String(), startsAt: Nullable(Type.String()), endsAt: Nullable(Type.String()),
  teamId: Nullable(Type.String()), teamKey: Nullable(Type.String()), projectId: Nullable(Type.String()), projectKey: Nullable(Type.String()),
  archived: Type.Boolean(), links: Type.Array(WorkLinkSchema), createdAt: Type.String(), updatedAt: Type.String(),
});

const meetingFields = {
  title: Type.String({ description: 'Non-empty (MEETING_TITLE_REQUIRED).' }),
  description: Nullable(Type.String({ maxLength: 10_000 })),
  type: Type.String({ description: 'Free text, 1–50 characters; default "meeting".' }),
  recurrenceType: RecurrenceTypeSchema,
  startsAt: Nullable(Type.String({ description: 'ISO 8601 datetime with offset; required when recurring.' })),
  endsAt: Nullable(Type.String({ description: 'ISO 8601 datetime with offset, after startsAt.' })),
  teamId: Nullable(Type.String()),
  teamKey: Nullable(Type.String()),
  projectId: Nullable(Type.String({ description: 'The meeting takes the project\'s team.' })),
  projectKey: Nullable(Type.String({ description: 'Needs teamKey when ambiguous.' })),
  archived: Type.Boolean(),
};

export const MeetingBody = Type.Partial(Type.Object(meetingFields));
export const meetingFieldCodes = {
  title: 'MEETING_TITLE_REQUIRED', startsAt: 'INVALID_MEETING_TIME', endsAt: 'INVALID_MEETING_TIME', archived: 'INVALID_ARCHIVE_STATE',
} as const;

export const ListMeetingsQuery = Type.Object({
  teamId: Type.Optional(Type.String()), teamKey: Type.Optional(Type.String()),
  projectId: Type.Optional(Type.String()), projectKey: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()), recurrenceType: Type.Optional(RecurrenceTypeSchema),
  archived: Type.Optional(Type.Boolean({ description: 'true lists only archived meetings.' })),
  view: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('archived')], { description: 'archived: same as archived=true.' })),
  q: Type.Optional(Type.String({ description: 'Case-insensitive match on title and description.' })),
  ...PaginationQuery,
});

export const MeetingIdParams = Type.Object({ meetingId: Type.String() });
export const MeetingResponse = Type.Object({ meeting: MeetingSchema });
export const MeetingListResponse = Type.Object({ meetings: Type.Array(MeetingSchema), pageInfo: PageInfoSchema });
