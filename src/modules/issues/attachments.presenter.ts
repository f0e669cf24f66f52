import type { AttachmentRow } from '../../db/tables/issues.js';

/** Attachments are never edited, so updatedAt is their creation time (every record carries both). */
export const presentAttachment = (a: AttachmentRow) => ({
  attachmentId: a.id,
  url: a.url,
  name: a.name,
  createdAt: a.created_at,
  updatedAt: a.created_at,
  createdBy: a.created_by,
});

export type AttachmentView = ReturnType<typeof presentAttachment>;
