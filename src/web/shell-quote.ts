/**
 * One word for a POSIX shell (sh, bash, zsh), quoted so the shell reads it back unchanged
 * and runs nothing in it: the whole text goes between single quotes, inside which the shell
 * expands nothing (`$(…)`, backticks, `;`, `&`, `|`, newlines are all literal), and each
 * single quote of the text, which cannot appear inside them, closes the quotes, is given
 * escaped, and opens them again: `it's` → `'it'\''s'`.
 */
export const shellQuote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;
