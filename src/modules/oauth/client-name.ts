/**
 * A client's name is its own claim, shown to people on the consent and sign-in pages, so
 * it must read as what it is: no invisible or direction-changing characters, no letters
 * borrowed from a look-alike script inside a word, and no room for a paragraph. A name is
 * normalised (NFKC, spaces collapsed) rather than refused where that loses nothing, and
 * refused where guessing what was meant would.
 */

/** Long enough for any application's name, too short for a paragraph posing as page text. */
export const MAX_CLIENT_NAME_LENGTH = 100;

/** More marks than this on one letter stack over the lines around it. */
const MAX_MARKS_IN_A_ROW = 4;

/**
 * Characters that change what the text around them looks like, or show nothing: controls
 * (Cc), format characters (Cf: zero-width spaces and joiners, direction marks, embeddings,
 * overrides and isolates, the soft hyphen, tags), the default-ignorable characters shown as
 * nothing (the Hangul fillers, variation selectors), line and paragraph separators, private
 * use, lone surrogates and unassigned code points.
 */
const HIDDEN_RE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/** Scripts whose letters pass for one another's (Latin a, Cyrillic а, Greek α …): a word keeps to one of them. */
const LOOK_ALIKE_SCRIPTS: ReadonlyArray<[string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
];

const MARKS_RE = new RegExp(`\\p{M}{${MAX_MARKS_IN_A_ROW + 1},}`, 'u');

/** A registered name that breaks these rules; the message is the `error_description`. */
export class ClientNameProblem extends Error {}

const codePoint = (char: string): string => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The first word that mixes look-alike scripts, with the scripts it mixes. */
function mixedScriptWord(name: string): { word: string; scripts: string[] } | undefined {
  for (const word of name.split(/[^\p{L}\p{M}]+/u)) {
    const scripts = LOOK_ALIKE_SCRIPTS.filter(([, re]) => re.test(word)).map(([script]) => script);
    if (scripts.length > 1) return { word, scripts };
  }
  return undefined;
}

/** The name as wsx stores and shows it; throws ClientNameProblem when it is refused. */
export function normalisedClientName(value: string): string {
  const hidden = HIDDEN_RE.exec(value);
  if (hidden)
    throw new ClientNameProblem(
      `client_name holds ${codePoint(hidden[0])}, an invisible, control or direction character ` +
        'that could disguise the name people read; send the name without it',
    );
  // NFKC folds compatibility forms (fullwidth, mathematical bold, ligatures) into the plain
  // letters they show; every run of spaces reads as one.
  const name = value.normalize('NFKC').replace(/\s+/gu, ' ').trim();
  if (name === '') throw new ClientNameProblem('client_name must hold at least one visible character');
  const length = [...name].length;
  if (length > MAX_CLIENT_NAME_LENGTH)
    throw new ClientNameProblem(
      `client_name is ${length} characters long; at most ${MAX_CLIENT_NAME_LENGTH}: the application's name, not a description`,
    );
  const mixed = mixedScriptWord(name);
  if (mixed)
    throw new ClientNameProblem(
      `client_name mixes ${mixed.scripts.join(' and ')} letters in the word "${mixed.word}", ` +
        'as look-alike names do; spell each word in one script',
    );
  if (MARKS_RE.test(name))
    throw new ClientNameProblem(
      `client_name stacks more than ${MAX_MARKS_IN_A_ROW} combining marks on one letter, which draws over the text around it`,
    );
  return name;
}

/**
 * The name to show for a registered client: its stored name when today's rules accept it as
 * it is; a name registered before them that they refuse is not shown (undefined), and the
 * pages name the client by its id instead.
 */
export function shownClientName(stored: string | null): string | undefined {
  if (stored === null) return undefined;
  try {
    return normalisedClientName(stored) === stored ? stored : undefined;
  } catch {
    return undefined;
  }
}
