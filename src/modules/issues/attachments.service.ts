import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { LIMITS } from '../../core/limits.js';
import { isHttpUrl } from '../../core/values.js';
import type { AttachmentRow } from '../../db/tables/issues.js';
import { requireVisibleIssue } from './issues.service.js';
import { presentAttachment, type AttachmentView } from './attachments.presenter.js';
import {
  deleteAttachmentRows,
  insertAttachmentRows,
  listAttachmentRows,
  type AttachmentOwner,
} from './attachments.repository.js';

export type { AttachmentOwner } from './attachments.repository.js';
export type { AttachmentView } from './attachments.presenter.js';

export const MAX_ATTACHMENT_LINKS = LIMITS.attachments;
const NAME_MAX = LIMITS.attachmentName;

export interface AttachmentLink {
  url: string;
  name: string | null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseLink(value: unknown, path: string): AttachmentLink {
  const item = isObject(value) ? value : {};
  if (!isHttpUrl(item.url)) throw new ApiError('ATTACHMENT_URL_REQUIRED', { field: `${path}url` });
  const unknownFields = Object.keys(item).filter((key) => key !== 'url' && key !== 'name');
  if (unknownFields.length)
    throw new ApiError('VALIDATION_FAILED', { unknownFields: unknownFields.map((key) => `${path}${key}`) });
  const name = item.name ?? null;
  if (name !== null && (typeof name !== 'string' || name.length > NAME_MAX)) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: `${path}name` },
      { message: `name must be a string of at most ${NAME_MAX} characters.` },
    );
  }
  return { url: item.url, name: typeof name === 'string' && name.trim() ? name.trim() : null };
}

/**
 * Reads an attachment request body: `{ links: [{ url, name? }] }` with 1–20 links, or a
 * single `{ url, name? }`. Every URL must be absolute http(s) of at most 2,048 characters;
 * one bad link refuses the whole request (ATTACHMENT_URL_REQUIRED names it as
 * `links.<i>.url`), more than 20 is ATTACHMENT_LIMIT_EXCEEDED.
 */
export function parseAttachmentLinks(body: unknown): AttachmentLink[] {
  const input = isObject(body) ? body : {};
  if (input.links === undefined) return [parseLink(input, '')];
  if (input.url !== undefined || input.name !== undefined) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'links' },
      { message: 'Send either links or a single url, not both.' },
    );
  }
  if (!Array.isArray(input.links) || input.links.length === 0)
    throw new ApiError('ATTACHMENT_URL_REQUIRED', { field: 'links' });
  if (input.links.length > MAX_ATTACHMENT_LINKS) {
    throw new ApiError('ATTACHMENT_LIMIT_EXCEEDED', {
      field: 'links',
      count: input.links.length,
      max: MAX_ATTACHMENT_LINKS,
    });
  }
  return input.links.map((link, index) => parseLink(link, `links.${index}.`));
}

/** Attaches already-parsed links to any owner (the caller has checked the owner's visibility). */
export async function insertAttachments(
  ctx: Ctx,
  owner: AttachmentOwner,
  links: AttachmentLink[],
): Promise<AttachmentView[]> {
  const rows: AttachmentRow[] = links.map((link) => ({
    id: newId('att', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    issue_id: owner.kind === 'issue' ? owner.id : null,
    agenda_item_id: owner.kind === 'agenda_item' ? owner.id : null,
    url: link.url,
    name: link.name,
    created_by: ctx.principal.id,
    created_at: ctx.now,
    updated_at: ctx.now,
  }));
  await insertAttachmentRows(ctx, rows);
  return rows.map(presentAttachment);
}

export async function listAttachments(ctx: Ctx, owner: AttachmentOwner): Promise<AttachmentView[]> {
  return (await listAttachmentRows(ctx, owner.kind, [owner.id])).map(presentAttachment);
}

/** Attachments of many owners of one kind, keyed by owner id (one query, for list reads). */
export async function listAttachmentsOf(
  ctx: Ctx,
  kind: AttachmentOwner['kind'],
  ownerIds: string[],
): Promise<Map<string, AttachmentView[]>> {
  const byOwner = new Map<string, AttachmentView[]>(ownerIds.map((id) => [id, []]));
  for (const row of await listAttachmentRows(ctx, kind, ownerIds)) {
    byOwner.get((kind === 'issue' ? row.issue_id : row.agenda_item_id) as string)?.push(presentAttachment(row));
  }
  return byOwner;
}

export const removeAttachmentsOf = deleteAttachmentRows;

export async function addIssueAttachments(ctx: Ctx, issueIdOrKey: string, body: unknown) {
  const issue = await requireVisibleIssue(ctx, issueIdOrKey);
  return { attachments: await insertAttachments(ctx, { kind: 'issue', id: issue.id }, parseAttachmentLinks(body)) };
}

export async function listIssueAttachments(ctx: Ctx, issueIdOrKey: string) {
  const issue = await requireVisibleIssue(ctx, issueIdOrKey);
  return { attachments: await listAttachments(ctx, { kind: 'issue', id: issue.id }) };
}
