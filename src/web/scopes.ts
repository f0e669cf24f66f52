/** What each OAuth scope lets a connector do, in words for the consent and connectors pages. */
const SCOPE_WORDS: Record<string, string> = {
  read: 'Read everything you can see: projects, issues, milestones, meetings and discussions.',
  write: 'Create and change issues, milestones, meetings, agenda items and discussions as you.',
};

export const scopeInWords = (scope: string): string => SCOPE_WORDS[scope] ?? `The scope “${scope}”.`;

/** Short form for tables: "read, write". */
export const scopeList = (scopes: readonly string[]): string => scopes.join(', ') || 'none';
