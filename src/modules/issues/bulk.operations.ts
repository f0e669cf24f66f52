import type { TObject } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';
import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import { parseInput } from '../../operations/validate.js';
import type { VersionedResource } from '../../operations/versioned.js';
import { BulkIssuesResponse, bulkCreateBody, bulkUpdateBody } from './bulk.schemas.js';
import { bulkCreateIssues, bulkUpdateIssues } from './bulk.service.js';
import type { UpdateIssueInput } from './issue-update.service.js';
import type { CreateIssueInput } from './issues.service.js';

const tag = 'Issues';

function single(operations: Operation[], id: string): Operation & { body: TObject } {
  const op = operations.find((candidate) => candidate.id === id);
  if (!op?.body) throw new Error(`The bulk issue routes need the ${id} operation.`);
  return op as Operation & { body: TObject };
}

function issueResourceOf(op: Operation): VersionedResource {
  if (!op.resource) throw new Error(`The bulk update needs ${op.id}'s versioned resource.`);
  return op.resource;
}

/** Every code the single route answers beyond the shared ones: its own and its fields'. */
const codesOf = (op: Operation): ErrorCode[] => [...(op.errors ?? []), ...Object.values(op.fieldCodes ?? {})];

/** A bulk write weighs on the rate limit as one request per item. */
const perItem = (body: { issues: unknown[] }): number => body.issues.length;

/**
 * POST and PATCH /issues/bulk, built on the single routes (`create_issue`, `update_issue`):
 * each item is documented as their body and checked by their validation, so an item is
 * held to exactly the rules, bounds and codes of the single route.
 */
export function bulkIssueOperations(operations: Operation[]): Operation[] {
  const createOne = single(operations, 'create_issue');
  const updateOne = single(operations, 'update_issue');
  return [
    defineOperation({
      id: 'bulk_create_issues',
      method: 'POST',
      path: '/api/external/issues/bulk',
      tag,
      summary: 'Create up to 50 issues in one transaction: all of them, or none and the failing item named.',
      description:
        "Each item is a create_issue body, created in order with its key from the team's counter. When an item " +
        "fails, nothing is written and the answer is that item's error, as create_issue would answer it, with " +
        '`details.index` (from 0) naming the item. Counts as one request per item against the rate limit.',
      body: bulkCreateBody(createOne.body, createOne.requiredFields ?? []),
      requiredFields: ['issues'],
      requestCost: perItem,
      errors: codesOf(createOne),
      response: BulkIssuesResponse,
      successStatus: 201,
      run: async (ctx, { body }) =>
        created({
          issues: await bulkCreateIssues(
            ctx,
            body.issues,
            (item) => parseInput(createOne, { body: item }).body as CreateIssueInput,
          ),
        }),
    }),
    defineOperation({
      id: 'bulk_update_issues',
      method: 'PATCH',
      path: '/api/external/issues/bulk',
      tag,
      summary: 'Update up to 50 issues in one transaction: all of them, or none and the failing item named.',
      description:
        'Each item is an update_issue body plus `issueId` or `issueKey`, applied in order; an issue appears at ' +
        'most once. The answer lists the issues in item order, each as the whole request leaves it. ' +
        "When an item fails, nothing is written and the answer is that item's error, as update_issue " +
        'would answer it, with `details.index` (from 0) naming the item. An item with `expectedVersion` is ' +
        'written only if the issue still has that version (else PRECONDITION_FAILED). Honours Idempotency-Key like a POST. ' +
        'Counts as one request per item against the rate limit.',
      body: bulkUpdateBody(updateOne.body),
      requiredFields: ['issues'],
      requestCost: perItem,
      takesIdempotencyKey: true,
      errors: [...codesOf(updateOne), 'ISSUE_NOT_FOUND', 'PRECONDITION_FAILED'],
      response: BulkIssuesResponse,
      run: async (ctx, { body }) =>
        ok({
          issues: await bulkUpdateIssues(
            ctx,
            body.issues,
            (issueId, patch) => parseInput(updateOne, { params: { issueId }, body: patch }).body as UpdateIssueInput,
            issueResourceOf(updateOne),
          ),
        }),
    }),
  ];
}
