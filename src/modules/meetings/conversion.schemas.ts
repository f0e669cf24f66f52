import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';
import { DateString, NonBlank, Nullable, Ref, Text, Title } from '../../operations/schema-helpers.js';
import { CommentSchema, IssueSchema } from '../issues/index.js';
import { AgendaItemSchema } from './agenda-items.schemas.js';

export const IssueFromItemBody = Type.Object({
  projectId: Type.Optional(Ref("Default: the item's sourceProjectId, else the meeting's project.")),
  projectKey: Type.Optional(Ref('With teamKey when ambiguous.')),
  teamId: Type.Optional(Ref()),
  teamKey: Type.Optional(Ref()),
  dueDate: Type.Optional(Nullable(DateString("YYYY-MM-DD; default: the item's checkInDate; null: none."))),
  assigneeId: Type.Optional(Nullable(Ref('usr_… or api-token:<name>.'))),
  statusKey: Type.Optional(Ref()),
  title: Type.Optional(Title("Default: the item's title; at most 500 characters.")),
});
/** A wrong JSON type answers the code createIssue gives a bad value of the field. */
export const issueFromItemFieldCodes: Record<string, ErrorCode> = {
  title: 'TITLE_REQUIRED',
  dueDate: 'INVALID_SCHEDULE',
  assigneeId: 'ASSIGNEE_NOT_IN_WORKSPACE',
};

export const PublishNotesBody = Type.Object({
  issueId: Type.Optional(Ref()),
  issueKey: Type.Optional(Ref()),
  body: Type.Optional(NonBlank(Text("Comment text; default: the item's notes."))),
});
export const publishFieldCodes: Record<string, ErrorCode> = { body: 'COMMENT_BODY_REQUIRED' };

export const ConvertResponse = Type.Object({
  issue: IssueSchema,
  agendaItem: AgendaItemSchema,
  created: Type.Boolean(),
});
export const TasksResponse = Type.Object({ issue: IssueSchema, agendaItem: AgendaItemSchema });
export const PublishResponse = Type.Object({ comment: CommentSchema, issue: IssueSchema });
