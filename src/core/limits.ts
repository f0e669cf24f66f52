/**
 * The bounds every request is held to (README "Limits"). The schemas show them as
 * `maxLength` / `maxItems` in the OpenAPI document and enforce them; services that check a
 * value themselves read the same numbers, so the two never disagree.
 */
export const LIMITS = {
  /** Nesting of objects and arrays in a body (the body itself is level 1). */
  jsonDepth: 32,
  /** Titles of issues, sub-tasks, milestones, meetings, agenda items and topics. */
  title: 500,
  /** Any other free text without a tighter rule: names, notes, bodies, external names. */
  text: 65_536,
  /** Descriptions of projects (docs/api.md, "Limits"), groups, meetings, agenda items and topics. */
  description: 10_000,
  /** Ids, keys and other references, in bodies and query strings. */
  ref: 255,
  /** A path segment: the HTTP router refuses longer ones before any route runs. */
  pathParam: 100,
  /** Search text (`q`). */
  search: 500,
  /** An opaque pagination cursor. */
  cursor: 1_000,
  /** Entries of any list in a body without a tighter rule (links, memberIds, events). */
  list: 100,
  /** Entries of `tags` / `labels`, and characters of one tag. */
  tags: 50,
  tagLength: 50,
  /** Attachment links per request, characters of a URL and of a link's display name. */
  attachments: 20,
  url: 2_048,
  attachmentName: 500,
  /**
   * Complete reorder lists (agendaGroupIds, orderedStatusIds), and so the number of agenda
   * groups a meeting and agenda statuses a workspace may have: a list that must name every
   * record can only be bounded if the records are.
   */
  ordered: 1_000,
  /** Title evolution reason (docs/api.md, "Limits"). */
  evolutionReason: 2_000,
  /** Meeting `type` (docs/api.md, "Limits"). */
  meetingType: 50,
  /** Discussion group names and agenda status names: short labels shown in lists. */
  groupName: 200,
  agendaStatusName: 100,
  /** An email address (RFC 5321's path limit). */
  email: 320,
} as const;
