import { Type, type TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';

/**
 * Small schema vocabulary shared by every area's operations. Every string and list a
 * client sends carries a bound (README "Limits"), so the validator refuses oversized input
 * before a service sees it and the OpenAPI document shows each bound.
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Dates are checked for their exact form by the services (own codes), which bounds them. */
export const DateString = (description = 'YYYY-MM-DD.') => Type.String({ description });

/** An id, key or other reference in a body or query string. */
export const Ref = (description?: string) =>
  Type.String({ maxLength: LIMITS.ref, ...(description ? { description } : {}) });

/** A path parameter; the router refuses longer segments before the route runs. */
export const PathParam = (description?: string) =>
  Type.String({ maxLength: LIMITS.pathParam, ...(description ? { description } : {}) });

/**
 * Keywords the OpenAPI document shows for a check a service makes itself, with its own code
 * and details (a title that must not be blank, a link type from a fixed set): the validator
 * never sees them, so what the server accepts and answers stays the service's, while the
 * document states the rule. A symbol, like OVER_LIMIT_CODE, so it stays out of the
 * validator and the MCP tool schemas.
 */
export const SERVICE_CHECK: unique symbol = Symbol.for('wsx.serviceCheck');

export interface ServiceCheck {
  enum?: readonly string[];
  minLength?: number;
  pattern?: string;
  /** The check of each entry, for a list. */
  items?: ServiceCheck;
}

export function serviceCheck<T extends TSchema>(schema: T, check: ServiceCheck): T {
  return Object.assign(schema, { [SERVICE_CHECK]: check });
}

export const serviceCheckOf = (schema: unknown): ServiceCheck | undefined =>
  typeof schema === 'object' && schema !== null
    ? ((schema as Record<symbol, unknown>)[SERVICE_CHECK] as ServiceCheck | undefined)
    : undefined;

/** Text the service trims and refuses when nothing is left (core/values.ts `nonBlank`). */
export const NON_BLANK: ServiceCheck = { minLength: 1, pattern: '\\S' };

/** Text that must not be blank: a name or title the service requires (its own code when blank). */
export const NonBlank = <T extends TSchema>(schema: T): T => serviceCheck(schema, NON_BLANK);

/** A title: issues, sub-tasks, milestones, meetings, agenda items, topics; never blank. */
export const Title = (description: string) => NonBlank(Type.String({ maxLength: LIMITS.title, description }));

/** Free text (names, notes, bodies) unless a tighter limit is given. */
export const Text = (description?: string, maxLength: number = LIMITS.text) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

/** A description: 10,000 characters, as docs/api.md ("Limits") sets for projects. */
export const Description = (description?: string) => Text(description, LIMITS.description);

/** A versioned record's `version` (src/operations/versioned.ts). */
export const Version = () =>
  Type.Integer({
    minimum: 1,
    description: 'Bumped by every change; the ETag starts with it and If-Match compares it.',
  });

/** Search text of a list's `q`. */
export const SearchText = (description: string) =>
  Type.Optional(Type.String({ maxLength: LIMITS.search, description }));

/** A list in a body: at most 100 entries unless a tighter bound is given. */
export const List = <T extends TSchema>(
  items: T,
  options: { description?: string; minItems?: number; maxItems?: number } = {},
) => Type.Array(items, { maxItems: LIMITS.list, ...options });

/**
 * Marks a bounded schema whose bound has its own code (docs/api.md, "Errors": an over-long
 * evolution title, an attachment URL over 2,048 characters, more than 20 links). Any other
 * value over a bound answers VALIDATION_FAILED with `field` and `max`. A symbol, so it
 * stays out of the OpenAPI document and the MCP tool schemas.
 */
export const OVER_LIMIT_CODE: unique symbol = Symbol.for('wsx.overLimitCode');

export function overLimitCode<T extends TSchema>(schema: T, code: ErrorCode): T {
  return Object.assign(schema, { [OVER_LIMIT_CODE]: code });
}

/**
 * Marks a parameter many routes share with one meaning (limit, cursor, fields, sort,
 * updatedSince). It is explained once, in the MCP server's instructions and docs/mcp.md,
 * so MCP tool schemas show it without its description; the OpenAPI document keeps it.
 */
export const COMMON_PARAMETER: unique symbol = Symbol.for('wsx.commonParameter');

export function commonParameter<T extends TSchema>(schema: T): T {
  return Object.assign(schema, { [COMMON_PARAMETER]: true });
}

export const isCommonParameter = (schema: unknown): boolean =>
  typeof schema === 'object' && schema !== null && (schema as Record<symbol, unknown>)[COMMON_PARAMETER] === true;

export const PaginationQuery = {
  limit: Type.Optional(
    commonParameter(
      Type.Integer({ minimum: 1, description: 'Page size, default 50; values above 200 are clamped to 200.' }),
    ),
  ),
  cursor: Type.Optional(
    commonParameter(
      Type.String({ maxLength: LIMITS.cursor, description: 'nextCursor of the previous page (same filters).' }),
    ),
  ),
};

export const PageInfoSchema = Type.Object({
  hasMore: Type.Boolean(),
  nextCursor: Nullable(Type.String()),
  limit: Type.Integer(),
});

const TagName = Type.String({ maxLength: LIMITS.tagLength });

export const TagList = Type.Array(TagName, {
  maxItems: LIMITS.tags,
  description: 'At most 50 tag names, 1–50 characters each, compared case-insensitively.',
});

/**
 * Marks an input field as a second name for a concept that has a primary field (`labels`
 * for `tags`, `project` for `projectId`/`projectKey`): HTTP accepts it as before and the
 * OpenAPI document shows it deprecated, while MCP tool schemas leave it out and refuse it
 * as an unknown argument (one name per concept). The symbol holds what to send instead.
 */
export const ALIAS_OF: unique symbol = Symbol.for('wsx.aliasOf');

export function alias<T extends TSchema>(schema: T, insteadSend: string): T {
  return Object.assign(schema, { deprecated: true, [ALIAS_OF]: insteadSend });
}

/** What to send instead of a field, when its schema is an alias. */
export const aliasOf = (schema: unknown): string | undefined =>
  typeof schema === 'object' && schema !== null
    ? ((schema as Record<symbol, unknown>)[ALIAS_OF] as string | undefined)
    : undefined;

/** Input field `labels`: the legacy name of `tags`, which it must agree with when both are sent. */
export const LabelList = alias(
  Type.Array(TagName, {
    maxItems: LIMITS.tags,
    description: 'Legacy name of tags; must agree with tags when both are sent (TAG_FIELD_CONFLICT).',
  }),
  'tags',
);
