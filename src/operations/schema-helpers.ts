import { Type, type TSchema } from '@sinclair/typebox';

/** Small schema vocabulary shared by every area's operations. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const DateString = (description = 'Calendar date, YYYY-MM-DD.') => Type.String({ description });
export const Id = (description: string) => Type.String({ minLength: 1, description });

export const PaginationQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Page size, default 50; values above 200 are clamped to 200.' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page (same filters).' })),
};

export const PageInfoSchema = Type.Object({
  hasMore: Type.Boolean(),
  nextCursor: Nullable(Type.String()),
  limit: Type.Integer(),
});

export const TagList = Type.Array(Type.String(), { description: 'Tag names, 1–50 characters each, compared case-insensitively.' });

/** Input field `labels`: the legacy name of `tags`, which it must agree with when both are sent. */
export const LabelList = Type.Array(Type.String(), { description: 'Legacy name of tags; must agree with tags when both are sent (TAG_FIELD_CONFLICT).' });
