import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import { AgendaItemParams } from './agenda-items.schemas.js';
import {
  ConvertResponse,
  IssueFromItemBody,
  PublishNotesBody,
  PublishResponse,
  TasksResponse,
  issueFromItemFieldCodes,
  publishFieldCodes,
} from './conversion.schemas.js';
import { convertAgendaItem, createAgendaItemTask, publishAgendaItemNotes } from './conversion.service.js';

const tag = 'Meetings';
const itemPath = '/api/external/meetings/{meetingId}/agenda-items/{agendaItemId}';

export const conversionOperations: Operation[] = [
  defineOperation({
    id: 'publish_agenda_item_notes',
    method: 'POST',
    path: `${itemPath}/notes/publish`,
    tag,
    summary: 'Post the notes (or body) as a comment on the given, converted, linked or newest task issue.',
    params: AgendaItemParams,
    body: PublishNotesBody,
    errors: ['ISSUE_NOT_FOUND', 'UNSUPPORTED_ACTION'],
    fieldCodes: publishFieldCodes,
    response: PublishResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) =>
      created(await publishAgendaItemNotes(ctx, params.meetingId, params.agendaItemId, body)),
  }),
  defineOperation({
    id: 'convert_agenda_item',
    method: 'POST',
    path: `${itemPath}/convert`,
    tag,
    summary:
      'Convert the item to an issue (201, created: true); a repeat answers the same issue (200, created: false).',
    params: AgendaItemParams,
    body: IssueFromItemBody,
    errors: ['ISSUE_NOT_FOUND', 'PROJECT_NOT_FOUND', 'PROJECT_REQUIRED', 'STATUS_NOT_FOUND', 'TEAM_NOT_FOUND'],
    answersExisting: true,
    fieldCodes: issueFromItemFieldCodes,
    response: ConvertResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) => {
      const result = await convertAgendaItem(ctx, params.meetingId, params.agendaItemId, body);
      return result.created ? created(result) : ok(result);
    },
  }),
  defineOperation({
    id: 'create_agenda_item_tasks',
    method: 'POST',
    path: `${itemPath}/tasks`,
    tag,
    summary: 'Create a related issue from the item without marking it converted; dedupe with Idempotency-Key.',
    params: AgendaItemParams,
    body: IssueFromItemBody,
    errors: ['PROJECT_NOT_FOUND', 'PROJECT_REQUIRED', 'STATUS_NOT_FOUND', 'TEAM_NOT_FOUND'],
    fieldCodes: issueFromItemFieldCodes,
    response: TasksResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) =>
      created(await createAgendaItemTask(ctx, params.meetingId, params.agendaItemId, body)),
  }),
];
