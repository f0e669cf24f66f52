/**
 * The issues module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export {
  AddAttachmentsBody,
  attachmentFieldCodes,
  AttachmentListResponse,
  AttachmentSchema,
} from './attachments.schemas.js';
export {
  type AttachmentView,
  insertAttachments,
  listAttachments,
  listAttachmentsOf,
  parseAttachmentLinks,
  removeAttachmentsOf,
} from './attachments.service.js';
export {
  commentFieldCodes,
  CommentListResponse,
  CommentResponse,
  CommentSchema,
  CreateCommentBody,
} from './comments.schemas.js';
export {
  addIssueComment,
  type CommentInput,
  type CommentView,
  insertComment,
  listComments,
  removeCommentsOf,
} from './comments.service.js';
export { checkAssignee, parseIssueTitle, parseTagFields } from './issue-rules.js';
export { touchIssuesMadeFrom } from './issue-touch.js';
export { issuesOperations } from './issues.operations.js';
export { issueRef } from './issues.presenter.js';
export { IssueSchema, LinkSchema } from './issues.schemas.js';
export {
  createIssue,
  type CreateIssueInput,
  findVisibleIssue,
  findVisibleIssues,
  getIssueView,
  issueNotFound,
  type IssueRecord,
  type IssueView,
  presentIssueRecord,
  requireVisibleIssue,
} from './issues.service.js';
export { INVERSE_LINK_TYPE, LINK_TYPES, type LinkType } from './links.presenter.js';
export { createIssueLink } from './links.service.js';
export { applyScheduleChange, scheduleFromInput, type ScheduleInput, sendsSchedule } from './schedule.js';

/** Each schemas file whole: the OpenAPI document names its exported schemas (api/openapi/component-names.ts). */
export * as attachmentSchemas from './attachments.schemas.js';
export * as commentSchemas from './comments.schemas.js';
export * as evolutionSchemas from './evolution.schemas.js';
export * as issueSchemas from './issues.schemas.js';
