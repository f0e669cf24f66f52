import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Ref } from '../../operations/schema-helpers.js';
import { IssueSchema } from './issues.schemas.js';

/** The most items one bulk write takes (as many as a JSON-RPC batch holds messages). */
export const BULK_MAX_ITEMS = 50;

/**
 * A bulk item: documented (OpenAPI, MCP tool schema) as `schema`, but an `Unknown` to the
 * envelope's validation. Each item is checked by the service with the single route's own
 * validation, so a bad item answers that route's code with the item's index in
 * `details.index`, where the envelope's validator would answer a nested path instead.
 */
const documentedItem = (schema: TObject, required: readonly string[] = []) =>
  Type.Unknown({ ...Object.fromEntries(Object.entries(schema)), ...(required.length ? { required } : {}) });

const bulkBody = (item: TSchema, description: string) =>
  Type.Object({
    issues: Type.Array(item, { minItems: 1, maxItems: BULK_MAX_ITEMS, description }),
  });

/** POST /issues/bulk: create_issue bodies, each with the fields create_issue requires. */
export const bulkCreateBody = (createItem: TObject, required: readonly string[]) =>
  bulkBody(
    documentedItem(createItem, required),
    `1 to ${BULK_MAX_ITEMS} issues, each a create_issue body (title required), created in this order; all or none.`,
  );

/** PATCH /issues/bulk: update_issue bodies, each naming its issue by exactly one of issueId and issueKey. */
export const bulkUpdateBody = (updateItem: TObject) =>
  bulkBody(
    documentedItem(
      Type.Object({
        issueId: Type.Optional(Ref('The issue to change (an issue key is accepted too); or issueKey.')),
        issueKey: Type.Optional(Ref('The issue to change, by key; or issueId.')),
        expectedVersion: Type.Optional(
          Type.Integer({
            minimum: 1,
            description:
              "The issue's version this change is based on (If-Match's twin): if it changed since, " +
              'nothing is written and the answer is PRECONDITION_FAILED naming the item.',
          }),
        ),
        ...updateItem.properties,
      }),
    ),
    `1 to ${BULK_MAX_ITEMS} changes, each an update_issue body plus issueId or issueKey, applied in this order; ` +
      'all or none. An issue appears at most once.',
  );

export const BulkIssuesResponse = Type.Object({
  issues: Type.Array(IssueSchema, { description: 'The issues as written, in the order of the request.' }),
});
