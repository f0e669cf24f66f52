import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../../config.js';
import { sqliteFileOf } from '../../db/connect.js';
import { publicOrigin, servesOAuth } from '../../http/public-url.js';
import { adminSignInArguments, type NoticeCommands } from '../../modules/workspace-file/index.js';
import { wsxCommand } from '../installation.js';

/** A word as a POSIX shell reads it back: bare when plain, else in single quotes. */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * What a command run in another shell needs to open this server's store: nothing for the
 * default file (the command is run where the server was started), DATABASE_URL for any
 * other (a SQLite path made absolute, so the directory does not matter). A PostgreSQL
 * password is never printed: a note asks for the server's DATABASE_URL instead. Undefined
 * for SQLite in memory, which no other process can open.
 */
function storeSetting(databaseUrl: string | undefined): { prefix: string; note?: string } | undefined {
  if (databaseUrl === undefined) return { prefix: '' };
  if (databaseUrl === 'sqlite::memory:') return undefined;
  const file = sqliteFileOf(databaseUrl);
  if (file) return { prefix: `DATABASE_URL=${shellWord(`sqlite:${file}`)} ` };
  let password = '';
  try {
    password = new URL(databaseUrl).password;
  } catch {
    password = '';
  }
  if (password) return { prefix: '', note: "Run it with this server's DATABASE_URL set." };
  return { prefix: `DATABASE_URL=${shellWord(databaseUrl)} ` };
}

/**
 * The commands the first start's notice names, as they run here: `npx wsx` or
 * `npm run wsx --` (installation.ts), and a sign-in link on the server's real public URL
 * (WSX_PUBLIC_URL, or the address it listens on: the port PORT=0 picked, too).
 */
export function firstStartCommands(config: AppConfig, app: FastifyInstance): NoticeCommands {
  const publicUrl = publicOrigin(config, app);
  const wsx = wsxCommand();
  const store = storeSetting(config.databaseUrl);
  return {
    publicUrl,
    wsx,
    signIn: store && {
      command: `${store.prefix}${wsx} ${adminSignInArguments(publicUrl).map(shellWord).join(' ')}`,
      ...(store.note ? { note: store.note } : {}),
    },
    oauth: servesOAuth(publicUrl),
  };
}
