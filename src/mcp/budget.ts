import { ApiError } from '../core/errors.js';

/**
 * How large a tool result may be. A model reads every result whole, and clients cap what
 * they pass on (at about 25k tokens), so a result past its budget is made to fit rather
 * than sent and lost: a list is fetched again with fewer records (its nextCursor then
 * continues from the last one kept, call.ts), and long text is cut with a marker and a
 * link to the whole text (text-resource.ts). The budget counts the JSON text's characters.
 */

/** About 8k tokens. */
export const DEFAULT_RESULT_BUDGET = 32_000;
export const MIN_RESULT_BUDGET = 4_000;
export const MAX_RESULT_BUDGET = 200_000;
/** Where a call's `_meta` may set its own budget, within the bounds above. */
export const BUDGET_META = 'wsx/maxResultBytes';
/** Where a result's `_meta` lists the text it cut. */
export const CUT_META = 'wsx/truncated';

/** No cut string keeps fewer characters than this: a cut is for a long text, not for many short ones. */
const MIN_KEPT = 200;
/** Text cut in one result at most; a result is a record or a page of them, each with a few texts. */
const MAX_CUTS = 100;

/** The budget a call's `_meta` asks for, or the default; VALIDATION_FAILED outside the bounds. */
export function budgetOf(meta: Record<string, unknown> | undefined): number {
  const asked = meta?.[BUDGET_META];
  if (asked === undefined) return DEFAULT_RESULT_BUDGET;
  if (typeof asked === 'number' && Number.isInteger(asked) && asked >= MIN_RESULT_BUDGET && asked <= MAX_RESULT_BUDGET)
    return asked;
  throw new ApiError(
    'VALIDATION_FAILED',
    { field: `_meta.${BUDGET_META}`, min: MIN_RESULT_BUDGET, max: MAX_RESULT_BUDGET },
    { message: `_meta["${BUDGET_META}"] must be an integer from ${MIN_RESULT_BUDGET} to ${MAX_RESULT_BUDGET}.` },
  );
}

export const sizeOf = (body: unknown): number => JSON.stringify(body).length;

/** A text a result had to cut: where it is (dotted path), and how much of it is shown. */
export interface Cut {
  path: string;
  shown: number;
  total: number;
}

interface Leaf {
  path: string[];
  text: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every string of a JSON value with its path; bounded by the value, which the server built. */
function leaves(value: unknown, path: string[] = [], found: Leaf[] = []): Leaf[] {
  if (typeof value === 'string') found.push({ path, text: value });
  else if (Array.isArray(value)) value.forEach((item, index) => leaves(item, [...path, String(index)], found));
  else if (isObject(value)) for (const [key, item] of Object.entries(value)) leaves(item, [...path, key], found);
  return found;
}

const marker = (more: number): string => `…[cut: ${more} more characters]`;

function replaceAt(value: unknown, path: string[], text: string): unknown {
  if (path.length === 0) return text;
  const [head, ...rest] = path;
  if (Array.isArray(value))
    return (value as unknown[]).map((item, index) => (String(index) === head ? replaceAt(item, rest, text) : item));
  const record = value as Record<string, unknown>;
  return { ...record, [head]: replaceAt(record[head], rest, text) };
}

/**
 * The body with its longest texts cut, longest first, until its JSON fits the budget
 * (or nothing longer than `longerThan` is left to cut). Each cut text ends with a marker
 * saying how much more there is; `cuts` says where.
 */
export function cutLongText(body: unknown, budget: number, longerThan = MIN_KEPT * 2): { body: unknown; cuts: Cut[] } {
  let excess = sizeOf(body) - budget;
  if (excess <= 0) return { body, cuts: [] };
  const longest = leaves(body)
    .filter((leaf) => leaf.text.length > longerThan)
    .sort((a, b) => b.text.length - a.text.length)
    .slice(0, MAX_CUTS);
  let cut = body;
  const cuts: Cut[] = [];
  for (const leaf of longest) {
    if (excess <= 0) break;
    const escaped = JSON.stringify(leaf.text).length;
    // Escaped characters (quotes, newlines) take more room than they count: scale the cut.
    const ratio = escaped / Math.max(1, leaf.text.length);
    const room = Math.ceil((excess + marker(leaf.text.length).length) / ratio);
    const shown = Math.max(MIN_KEPT, leaf.text.length - room);
    if (shown >= leaf.text.length) continue;
    const text = leaf.text.slice(0, shown) + marker(leaf.text.length - shown);
    cut = replaceAt(cut, leaf.path, text);
    excess -= escaped - JSON.stringify(text).length;
    cuts.push({ path: leaf.path.join('.'), shown, total: leaf.text.length });
  }
  return { body: cut, cuts };
}

/** The value at a dotted path of a body (as `Cut.path` names it), if it is a string. */
export function textAt(body: unknown, path: string): string | undefined {
  let value = body;
  for (const key of path.split('.')) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
    else if (isObject(value) && Object.hasOwn(value, key)) value = value[key];
    else return undefined;
  }
  return typeof value === 'string' ? value : undefined;
}

/** In a page, only a text longer than this is cut: a page over its budget holds fewer records instead. */
export const LONG_IN_PAGE = 2_000;

/**
 * How many of a page's first records fit the budget beside the page's other fields (at
 * least one: a record alone over the budget has its text cut).
 */
export function recordsThatFit(body: Record<string, unknown>, records: unknown[], budget: number): number {
  const sizes = records.map((record) => sizeOf(record) + 1);
  let used = sizeOf(body) - sizes.reduce((sum, size) => sum + size, 0);
  let fit = 0;
  while (fit < sizes.length && used + sizes[fit] <= budget) used += sizes[fit++];
  return Math.max(1, fit);
}
