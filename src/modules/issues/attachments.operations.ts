import { Type } from '@sinclair/typebox';
import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import { Nullable } from '../../operations/schema-helpers.js';
import { addIssueAttachments, listIssueAttachments } from './attachments.service.js';
import { IssueIdParams } from './issues.schemas.js';

const tag = 'Issues';
const mcpAliases = { issueKey: 'issueId' };

const AttachmentSchema = Type.Object({
  attachmentId: Type.String(), url: Type.String(), name: Nullable(Type.String()), createdAt: Type.String(), createdBy: Type.String(),
});
const AttachmentListResponse = Type.Object({ attachments: Type.Array(AttachmentSchema) });

// Loosely typed on purpose: every bad link answers ATTACHMENT_URL_REQUIRED with its path
// (links.3.url), which the service's parser decides, not the schema validator.
export const AddAttachmentsBody = Type.Partial(Type.Object({
  links: Type.Unknown({ description: '1–20 links, each { url, name? }: url absolute http or https, at most 2,048 characters.' }),
  url: Type.Unknown({ description: 'A single link\'s URL, instead of links.' }),
  name: Type.Unknown({ description: 'Display name of the single link (string or null).' }),
}));

export const attachmentOperations: Operation[] = [
  defineOperation({
    id: 'list_attachments', method: 'GET', path: '/api/external/issues/{issueId}/attachments', tag, mcpAliases,
    summary: 'The issue\'s link attachments, oldest first.',
    params: IssueIdParams, response: AttachmentListResponse,
    run: async (ctx, { params }) => ok(await listIssueAttachments(ctx, params.issueId)),
  }),
  defineOperation({
    id: 'add_attachments', method: 'POST', path: '/api/external/issues/{issueId}/attachments', tag, mcpAliases,
    summary: 'Attach 1–20 http(s) links to an issue; all or none are attached.',
    params: IssueIdParams, body: AddAttachmentsBody, response: AttachmentListResponse, successStatus: 201,
    run: async (ctx, { params, body }) => created(await addIssueAttachments(ctx, params.issueId, body)),
  }),
];
