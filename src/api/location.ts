import type { TObject, TSchema } from '@sinclair/typebox';
import { hasOwn } from '../core/values.js';
import type { Operation, Result } from '../operations/define.js';

/**
 * The `Location` of a 201: the path of a GET route of the catalog that answers the created
 * resource. Derived from the catalog in this order:
 *
 * 1. a per-operation choice (OVERRIDES), where neither rule below finds the resource;
 * 2. member: a GET at the POST's path plus one `/{param}`, whose `param` is a field of the
 *    created object (`POST /issues` → `GET /issues/{issueId}` with `issue.issueId`);
 * 3. collection: a GET at the POST's own path, which lists what was created (attachments,
 *    an agenda group).
 *
 * A GET's parameters are filled from the created object first (its canonical id), then
 * from the request's path parameters, each percent-encoded.
 *
 * A comment is the exception to "a GET route": it is named by its own URL (OWN_URLS), which
 * no GET answers, rather than by the list that shows it, because a Location names the
 * created resource, not where to find it.
 */

interface LocationRule {
  /** The path template to fill: a GET route's, or a resource's own URL (OWN_URLS). */
  path: string;
  /** The response body entry holding the created object, when its fields fill the path. */
  from?: string;
}

/**
 * Operations whose created resource has a URL of its own that no GET route answers: a
 * comment's, under its issue (where DELETE takes it) or its milestone.
 */
export const OWN_URLS: Record<string, LocationRule> = {
  add_comment: { path: '/api/external/issues/{issueId}/comments/{commentId}', from: 'comment' },
  add_milestone_comment: {
    path: '/api/external/issue-container-milestones/{milestoneId}/comments/{commentId}',
    from: 'comment',
  },
};

/**
 * Operations whose created thing has no GET of its own (a link) or lives elsewhere (the
 * issue a conversion creates); docs/decisions/0018-location-on-201.md records why each route was chosen.
 */
const OVERRIDES: Record<string, { get: string; from?: string }> = {
  // A link shows in the `links` of the record it was added to.
  link_issues: { get: 'get_issue' },
  link_subtasks: { get: 'get_subtask' },
  link_meeting: { get: 'get_meeting' },
  link_agenda_item: { get: 'get_agenda_item' },
  // Conversions and promotions create an issue.
  promote_subtask: { get: 'get_issue', from: 'issue' },
  convert_agenda_item: { get: 'get_issue', from: 'issue' },
  create_agenda_item_tasks: { get: 'get_issue', from: 'issue' },
  convert_discussion_topic: { get: 'get_issue', from: 'issue' },
  // Published notes are a comment on the issue answered beside it.
  publish_agenda_item_notes: { get: 'list_comments', from: 'issue' },
  // Many issues at once: the list they are in.
  bulk_create_issues: { get: 'list_issues' },
  // Presets and agenda statuses are listed in the meeting settings.
  create_external_owner_preset: { get: 'get_meeting_settings' },
  create_agenda_status: { get: 'get_meeting_settings' },
};

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const propertiesOf = (schema: TSchema | undefined): Record<string, TSchema> =>
  (schema as TObject | undefined)?.properties ?? {};

/** The response entry whose object has the field `name` (`issue` for `issueId`). */
const entryHolding = (op: Operation, name: string): string | undefined =>
  Object.entries(propertiesOf(op.response)).find(([, schema]) => hasOwn(propertiesOf(schema), name))?.[0];

function memberRule(op: Operation, gets: Operation[]): LocationRule | undefined {
  const member = new RegExp(`^${escapeRegExp(op.path)}/\\{(\\w+)\\}$`);
  for (const get of gets) {
    const param = member.exec(get.path)?.[1];
    const from = param === undefined ? undefined : entryHolding(op, param);
    if (from !== undefined) return { path: get.path, from };
  }
  return undefined;
}

function ruleFor(op: Operation, gets: Operation[]): LocationRule | undefined {
  if (hasOwn(OWN_URLS, op.id)) return OWN_URLS[op.id];
  const override = hasOwn(OVERRIDES, op.id) ? OVERRIDES[op.id] : undefined;
  if (override) {
    const get = gets.find((candidate) => candidate.id === override.get);
    return get && { path: get.path, from: override.from };
  }
  const collection = gets.find((get) => get.path === op.path);
  return memberRule(op, gets) ?? (collection && { path: collection.path });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A text path segment from the created object or the request; undefined if neither has it. */
function segment(name: string, created: Record<string, unknown>, params: Record<string, unknown>): string | undefined {
  const value = hasOwn(created, name) ? created[name] : hasOwn(params, name) ? params[name] : undefined;
  return typeof value === 'string' && value.length > 0 ? encodeURIComponent(value) : undefined;
}

function fill(rule: LocationRule, body: unknown, params: Record<string, unknown>): string | undefined {
  const entry = rule.from !== undefined && isRecord(body) && hasOwn(body, rule.from) ? body[rule.from] : undefined;
  const created = isRecord(entry) ? entry : {};
  let missing = false;
  const path = rule.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = segment(name, created, params);
    if (value === undefined) missing = true;
    return value ?? '';
  });
  return missing ? undefined : path;
}

export type LocationResolver = (op: Operation, result: Result, params: Record<string, unknown>) => string | undefined;

/**
 * A resolver for `operations`: given an operation, its result and the request's path
 * parameters, the Location path of a 201, undefined for any other status (or when the
 * result lacks the ids the path needs). Rules are worked out once, here.
 */
export function locationResolver(operations: Operation[]): LocationResolver {
  const gets = operations.filter((op) => op.method === 'GET');
  const rules = new Map<Operation, LocationRule | undefined>(
    operations.filter((op) => op.method === 'POST').map((op) => [op, ruleFor(op, gets)]),
  );
  return (op, result, params) => {
    const rule = result.status === 201 ? rules.get(op) : undefined;
    return rule && fill(rule, result.body, params);
  };
}
