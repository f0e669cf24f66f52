/**
 * The terms of SQLite's search index (migration 0025_search_scope): one per distinct
 * trigram of a row's folded title and description, qualified by the row's workspace, so
 * that a workspace's search reads its own terms' row lists and nothing of any other
 * workspace's. Pure functions: the indexer (db/search-backlog.ts) and the searches
 * (db/text-search.ts) build the same terms from the same folded text.
 *
 * A term is the workspace's number (its rowid) in base 36, then the trigram's three code
 * points, each ASCII character but a letter or digit replaced by one of the private use
 * area: the `ascii` tokenizer then reads every term as one token (it splits at ASCII
 * punctuation and spaces only). A term's last three code points are its trigram, so no two
 * workspaces share a term; a text holding those private use characters itself shares terms
 * with the punctuation they stand for, which only adds candidates that the exact comparison
 * then drops.
 */

/** Code points in a trigram. */
export const TRIGRAM = 3;

/** ASCII but lower-case letters and digits (the text is folded: no upper-case letter is left). */
const SEPARATORS = /[^0-9a-z\u0080-\uffff]/g;
const PRIVATE_USE = 0xe000;
/** Half a surrogate pair: SQLite would get it as U+FFFD through a bound text, not through JSON. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const tokenText = (folded: string): string =>
  folded
    .replace(LONE_SURROGATE, '\ufffd')
    .replace(SEPARATORS, (char) => String.fromCharCode(PRIVATE_USE + char.charCodeAt(0)));

const prefixOf = (workspace: number): string => workspace.toString(36);

/** The term of one trigram (three code points of folded text) in a workspace. */
export const termOf = (workspace: number, trigram: string): string => prefixOf(workspace) + tokenText(trigram);

/** The distinct terms of a row's texts, folded as a search folds its text, space-separated. */
export function rowTerms(workspace: number, texts: ReadonlyArray<string | null>): string {
  const trigrams = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    // Code for code, as long as the folded text: a trigram is a slice of three code points.
    const token = tokenText(text.toLowerCase());
    let first = 0;
    let second = 0;
    let seen = 0;
    for (let at = 0; at < token.length;) {
      const end = at + (token.codePointAt(at)! > 0xffff ? 2 : 1);
      if (++seen >= TRIGRAM) trigrams.add(token.slice(first, end));
      first = second;
      second = at;
      at = end;
    }
  }
  if (trigrams.size === 0) return '';
  const prefix = prefixOf(workspace);
  return prefix + [...trigrams].join(` ${prefix}`);
}

/**
 * How common each character is in English text, in rough percent of letters (space counted
 * as one more letter). A trigram of rarer characters is likely in fewer rows; the index is
 * asked how many for the few chosen, so a wrong guess costs work, never a result.
 */
const COMMON: Record<string, number> = {
  ' ': 18,
  e: 12.7,
  t: 9.1,
  a: 8.2,
  o: 7.5,
  i: 7,
  n: 6.7,
  s: 6.3,
  h: 6.1,
  r: 6,
  d: 4.3,
  l: 4,
  c: 2.8,
  u: 2.8,
  m: 2.4,
  w: 2.4,
  f: 2.2,
  g: 2,
  y: 2,
  p: 1.9,
  b: 1.5,
  v: 1,
  k: 0.8,
};
/** Digits, punctuation and letters outside the table (j, q, x, z, other scripts). */
const UNCOMMON = 0.5;

/**
 * Up to `count` distinct trigrams of `folded` (case-folded as the index's text is), the
 * rarest-looking first, preferring ones that do not overlap those already chosen so that
 * they test different parts of the text. Empty for a text shorter than a trigram. Linear in
 * the text: a 500-character phrase has at most 498 trigrams to rank.
 */
export function distinctiveTrigrams(folded: string, count: number): string[] {
  const chars = Array.from(folded);
  const weights = chars.map((char) => COMMON[char] ?? UNCOMMON);
  const found = new Map<string, { at: number; weight: number }>();
  for (let at = 0; at + TRIGRAM <= chars.length; at++) {
    const trigram = chars[at] + chars[at + 1] + chars[at + 2];
    if (!found.has(trigram)) found.set(trigram, { at, weight: weights[at] + weights[at + 1] + weights[at + 2] });
  }
  const ranked = [...found].sort(([, a], [, b]) => a.weight - b.weight || a.at - b.at);
  const chosen: typeof ranked = [];
  const apart = ([, { at }]: (typeof ranked)[number]) =>
    chosen.every(([, other]) => Math.abs(other.at - at) >= TRIGRAM);
  for (const candidate of ranked) if (chosen.length < count && apart(candidate)) chosen.push(candidate);
  for (const candidate of ranked) if (chosen.length < count && !chosen.includes(candidate)) chosen.push(candidate);
  return chosen.map(([trigram]) => trigram);
}

/** Rows holding every one of the terms, as an FTS5 query (no term holds a double quote or a space). */
export const allTerms = (terms: readonly string[]): string => terms.map((term) => `"${term}"`).join(' AND ');
