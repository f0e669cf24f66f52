import type { Ctx } from '../../db/context.js';
import { ApiError, isApiError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { requireVersion, type VersionedResource } from '../../operations/versioned.js';
import { recordIssuesUpdated } from './issue-events.js';
import { insertEvolutions } from './evolution.repository.js';
import { updateEventOf, writeIssueUpdate, type SharedByItems, type UpdateIssueInput } from './issue-update.service.js';
import type { IssueRecord } from './issues.repository.js';
import {
  checkCreate,
  findVisibleIssues,
  insertCheckedCreates,
  ProjectLookups,
  type CreateIssueInput,
  type IssueView,
} from './issues.service.js';

/**
 * Bulk writes of issues: every item goes through the single-issue use-case's checks and
 * writes, in request order, in the caller's one transaction (a bulk create checks every item
 * before it inserts any; a bulk update writes each item, then records their events
 * together). The first item that fails stops the request; its error, thrown on, rolls back
 * whatever was written (rows, events, the teams' key counters) and names the item:
 * `details.index` and a message starting `issues[i]: `.
 */

/** Checks one item's body as the single route checks its body; throws that route's codes. */
type ItemCheck<T> = (body: unknown) => T;

/** Item `index`'s error with the item named; other errors (a store outage) pass unchanged. */
function naming(index: number, error: unknown): unknown {
  if (!isApiError(error)) return error;
  return new ApiError(
    error.code,
    { ...error.details, index },
    { message: `issues[${index}]: ${error.message}`, suggestion: error.suggestion, headers: error.headers },
  );
}

/** Runs `write` on each item in order; the first failure is thrown naming its item. */
async function eachItem<R>(
  items: readonly unknown[],
  write: (item: unknown, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (const [index, item] of items.entries()) {
    try {
      results.push(await write(item, index));
    } catch (error) {
      throw naming(index, error);
    }
  }
  return results;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function itemObject(item: unknown): Record<string, unknown> {
  if (isPlainObject(item)) return item;
  throw new ApiError('VALIDATION_FAILED', {}, { message: 'The item must be a JSON object.' });
}

/**
 * POST /issues/bulk: checks every item in order (the first that fails answers), then inserts
 * them all in that order (checkCreate reads nothing another create writes); answers them in
 * that order. Items naming the same project (and assignee) share its read (ProjectLookups).
 */
export async function bulkCreateIssues(
  ctx: Ctx,
  items: readonly unknown[],
  checkItem: ItemCheck<CreateIssueInput>,
): Promise<IssueView[]> {
  const lookups = new ProjectLookups();
  const checked = await eachItem(items, (item) => checkCreate(ctx, checkItem(itemObject(item)), { lookups }));
  return insertCheckedCreates(ctx, checked);
}

const REFERENCES = ['issueId', 'issueKey'] as const;
type Reference = (typeof REFERENCES)[number];

/** An item's expectedVersion: a JSON integer of at least 1, as the schema says. */
function expectedVersionOf(value: unknown): number | undefined {
  if (value === undefined || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1)) return value;
  throw new ApiError(
    'VALIDATION_FAILED',
    { field: 'expectedVersion', min: 1 },
    { message: 'expectedVersion must be an integer of at least 1: the version field of the issue you read.' },
  );
}

interface UpdateItem {
  field: Reference;
  ref: string;
  expectedVersion: number | undefined;
  patch: Record<string, unknown>;
}

/** The issue an update item names (exactly one of issueId and issueKey), its expected version, and the rest: its patch. */
function splitItem(item: Record<string, unknown>): UpdateItem {
  const { issueId, issueKey, expectedVersion, ...patch } = item;
  const sent = REFERENCES.filter((field) => item[field] !== undefined);
  if (sent.length !== 1)
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: sent.length === 0 ? 'issueId' : 'issueKey' },
      {
        message: `The item names its issue by ${sent.length === 0 ? 'neither' : 'both'} issueId and issueKey.`,
        suggestion: 'Send exactly one of issueId and issueKey in each item.',
      },
    );
  const field = sent[0];
  const ref = field === 'issueId' ? issueId : issueKey;
  if (typeof ref !== 'string' || ref.length === 0 || ref.length > LIMITS.pathParam)
    throw new ApiError(
      'VALIDATION_FAILED',
      { field, max: LIMITS.pathParam },
      {
        message: `The field ${field} must be an issue ${field === 'issueId' ? 'id' : 'key'} of 1 to ${LIMITS.pathParam} characters.`,
      },
    );
  return { field, ref, expectedVersion: expectedVersionOf(expectedVersion), patch };
}

/**
 * The issues the items name, read in one statement before any item is written: a write of
 * one issue changes no other issue's fields an update reads (it only moves the updated_at
 * and version of the issues it blocks), and no issue may be named twice. An item whose
 * reference is malformed is left to its own turn, which refuses it.
 */
function readNamedIssues(ctx: Ctx, items: readonly unknown[]): Promise<Map<string, IssueRecord>> {
  const refs = items.flatMap((item) =>
    isPlainObject(item)
      ? REFERENCES.map((field) => item[field]).filter(
          (ref): ref is string => typeof ref === 'string' && ref.length > 0 && ref.length <= LIMITS.pathParam,
        )
      : [],
  );
  return findVisibleIssues(ctx, refs);
}

/** issueId takes an id or a key, as the single route's path does; issueKey only a key. */
function requireItemIssue(named: Map<string, IssueRecord>, field: Reference, ref: string): IssueRecord {
  const issue = named.get(ref);
  if (!issue || (field === 'issueKey' && issue.issue_key !== ref.toUpperCase()))
    throw new ApiError('ISSUE_NOT_FOUND', { [field]: ref });
  return issue;
}

/**
 * PATCH /issues/bulk: applies the changes in order; answers the issues in that order, as the
 * bulk leaves them. An issue named twice (by id, key or both) is refused at its second item:
 * the answer would depend on the order of the two changes. Items whose issues share a project
 * share its read (ProjectLookups); the title changes and the events go in together once every
 * item is written.
 */
export async function bulkUpdateIssues(
  ctx: Ctx,
  items: readonly unknown[],
  checkPatch: (issueRef: string, patch: unknown) => UpdateIssueInput,
  issueResource: VersionedResource,
): Promise<IssueView[]> {
  const named = await readNamedIssues(ctx, items);
  const shared: SharedByItems = { lookups: new ProjectLookups(), titleChanges: [] };
  const firstIndexOf = new Map<string, number>();
  const updated = await eachItem(items, async (item, index) => {
    const { field, ref, expectedVersion, patch } = splitItem(itemObject(item));
    const input = checkPatch(ref, patch);
    const issue = requireItemIssue(named, field, ref);
    const first = firstIndexOf.get(issue.id);
    if (first !== undefined)
      throw new ApiError(
        'VALIDATION_FAILED',
        { field, duplicateOf: first },
        {
          message: `The item changes issue ${issue.issue_key}, which issues[${first}] already changes.`,
          suggestion: 'Send one item per issue, with all its changes.',
        },
      );
    firstIndexOf.set(issue.id, index);
    if (expectedVersion !== undefined)
      await requireVersion(ctx, issueResource, { issueId: issue.id }, { versions: [expectedVersion] });
    await writeIssueUpdate(ctx, issue, input, shared);
    return issue;
  });
  await insertEvolutions(ctx, shared.titleChanges);
  return recordIssuesUpdated(ctx, updated, updateEventOf);
}
