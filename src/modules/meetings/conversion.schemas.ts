import { Type } from '@sinclair/typebox';
import { CommentSchema } from '../issues/comments.schemas.js';
import { IssueSchema } from '../issues/issues.schemas.js';
import { AgendaItemSchema } from './agenda-items.schemas.js';

/** Loosely typed where createIssue answers a field's own code (TITLE_REQUIRED, INVALID_SCHEDULE, ASSIGNEE_*). */
export const IssueFromItemBody = Type.Object({
  projectId: Type.Optional(Type.String({ description: 'Default: the item\'s sourceProjectId, else the meeting\'s project.' })),
  projectKey: Type.Optional(Type.String({ description: 'With teamKey when ambiguous.' })),
  teamId: Type.Optional(Type.String()),
  teamKey: Type.Optional(Type.String()),
  dueDate: Type.Optional(Type.Unknown({ description: 'YYYY-MM-DD; default: the item\'s checkInDate.' })),
  assigneeId: Type.Optional(Type.Unknown({ description: 'usr_… or api-token:<name>.' })),
  statusKey: Type.Optional(Type.String()),
  title: Type.Optional(Type.Unknown({ description: 'Default: the item\'s title.' })),
});

export const PublishNotesBody = Type.Object({
  issueId: Type.Optional(Type.String()),
  issueKey: Type.Optional(Type.String()),
  body: Type.Optional(Type.Unknown({ description: 'Comment text; default: the item\'s notes.' })),
});

export const ConvertResponse = Type.Object({ issue: IssueSchema, agendaItem: AgendaItemSchema, created: Type.Boolean() });
export const TasksResponse = Type.Object({ issue: IssueSchema, agendaItem: AgendaItemSchema });
export const PublishResponse = Type.Object({ comment: CommentSchema, issue: IssueSchema });
