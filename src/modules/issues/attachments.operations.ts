import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import { AddAttachmentsBody, AttachmentListResponse, attachmentFieldCodes } from './attachments.schemas.js';
import { addIssueAttachments, listIssueAttachments } from './attachments.service.js';
import { IssueIdParams } from './issues.schemas.js';

const tag = 'Issues';
const mcpAliases = { issueKey: 'issueId' };

export const attachmentOperations: Operation[] = [
  defineOperation({
    id: 'list_attachments',
    method: 'GET',
    path: '/api/external/issues/{issueId}/attachments',
    tag,
    mcpAliases,
    summary: "The issue's link attachments, oldest first.",
    params: IssueIdParams,
    response: AttachmentListResponse,
    run: async (ctx, { params }) => ok(await listIssueAttachments(ctx, params.issueId)),
  }),
  defineOperation({
    id: 'add_attachments',
    method: 'POST',
    path: '/api/external/issues/{issueId}/attachments',
    tag,
    mcpAliases,
    summary: 'Attach 1–20 http(s) links to an issue; all or none are attached.',
    params: IssueIdParams,
    body: AddAttachmentsBody,
    errors: ['ATTACHMENT_LIMIT_EXCEEDED'],
    fieldCodes: attachmentFieldCodes,
    response: AttachmentListResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) => created(await addIssueAttachments(ctx, params.issueId, body)),
  }),
];
