import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { alias, Nullable, overLimitCode, Text } from '../../operations/schema-helpers.js';

/** Link attachments, shared by issues and agenda items. */
export const AttachmentSchema = Type.Object({
  attachmentId: Type.String(),
  url: Type.String(),
  name: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  createdBy: Type.String(),
});
export const AttachmentListResponse = Type.Object({ attachments: Type.Array(AttachmentSchema) });

// A URL over 2,048 characters and a batch over 20 links have their own codes (docs/api.md, "Errors");
// whether a URL is absolute http(s) is the service's check (ATTACHMENT_URL_REQUIRED too).
const Url = (description: string) => overLimitCode(Text(description, LIMITS.url), 'ATTACHMENT_URL_REQUIRED');
const LinkName = () => Nullable(Text('Display name (string or null).', LIMITS.attachmentName));

const LinkInput = Type.Object(
  {
    url: Url('Absolute http or https URL, at most 2,048 characters.'),
    name: Type.Optional(LinkName()),
  },
  { additionalProperties: false },
);

export const AddAttachmentsBody = Type.Partial(
  Type.Object({
    links: overLimitCode(
      Type.Array(LinkInput, {
        minItems: 1,
        maxItems: LIMITS.attachments,
        description: '1–20 links, each { url, name? }.',
      }),
      'ATTACHMENT_LIMIT_EXCEEDED',
    ),
    // The one-link form is a second way to say `links: [{ url, name }]`.
    url: alias(Url("A single link's URL, instead of links."), 'links'),
    name: alias(LinkName(), 'links'),
  }),
);

/** Every bad value of a link's URL answers ATTACHMENT_URL_REQUIRED, whatever the route; a bad name is VALIDATION_FAILED. */
export const attachmentFieldCodes: Record<string, ErrorCode> = {
  links: 'ATTACHMENT_URL_REQUIRED',
  'links.*': 'ATTACHMENT_URL_REQUIRED',
  'links.*.url': 'ATTACHMENT_URL_REQUIRED',
  'links.*.name': 'VALIDATION_FAILED',
  url: 'ATTACHMENT_URL_REQUIRED',
};
