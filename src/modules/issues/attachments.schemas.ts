import { Type } from '@sinclair/typebox';
import { Nullable } from '../../operations/schema-helpers.js';

/** Link attachments, shared by issues and agenda items. */
export const AttachmentSchema = Type.Object({
  attachmentId: Type.String(), url: Type.String(), name: Nullable(Type.String()), createdAt: Type.String(), updatedAt: Type.String(), createdBy: Type.String(),
});
export const AttachmentListResponse = Type.Object({ attachments: Type.Array(AttachmentSchema) });

// Loosely typed on purpose: every bad link answers ATTACHMENT_URL_REQUIRED with its path
// (links.3.url), which the service's parser decides, not the schema validator.
export const AddAttachmentsBody = Type.Partial(Type.Object({
  links: Type.Unknown({ description: '1–20 links, each { url, name? }: url absolute http or https, at most 2,048 characters.' }),
  url: Type.Unknown({ description: 'A single link\'s URL, instead of links.' }),
  name: Type.Unknown({ description: 'Display name of the single link (string or null).' }),
}));

/** Every bad value of a link answers ATTACHMENT_URL_REQUIRED, whatever the route. */
export const attachmentFieldCodes = { links: 'ATTACHMENT_URL_REQUIRED', url: 'ATTACHMENT_URL_REQUIRED' } as const;
