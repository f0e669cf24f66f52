import { convergeToken, PAT_SECRET_RE, PROJECT_REF_RE, projectIdsByRef, TOKEN_NAME_RE } from '../../auth/index.js';
import { atEntry, fail } from '../errors.js';
import {
  at,
  checkString,
  optionalBoolean,
  optionalString,
  readEntries,
  readList,
  requiredString,
  type EntryFormat,
} from '../fields.js';
import type { AccessLevel } from '../../../core/access-level.js';
import { optionalAccess, optionalExpiry, strongSecret } from './credential-fields.js';
import { defineListSection } from './section.js';

export interface TokenSpec {
  name: string;
  secret?: string;
  /** `projects: "*"` (or a list holding "*"): every project, present and future. */
  allProjects: boolean;
  /** `TEAM/PROJ` references. */
  projects: string[];
  active?: boolean;
  /** UTC ISO-8601; omitted keeps the stored expiry. */
  expiresAt?: string;
  /** Omitted keeps the stored level; a new token writes. */
  access?: AccessLevel;
}

function parseProjects(value: unknown, path: string): Pick<TokenSpec, 'allProjects' | 'projects'> {
  if (value === undefined || value === null) return { allProjects: false, projects: [] };
  if (value === '*') return { allProjects: true, projects: [] };
  const refs = readList(value, path).map((item, index) => {
    const ref = checkString(item, at(path, index), { upperCase: true });
    if (ref !== '*' && !PROJECT_REF_RE.test(ref)) fail(at(path, index), 'must be "*" or TEAM/PROJ');
    return ref;
  });
  if (!refs.includes('*')) return { allProjects: false, projects: refs };
  if (refs.length > 1) fail(path, '"*" already covers every project; list it alone');
  return { allProjects: true, projects: [] };
}

const tokenEntry: EntryFormat<TokenSpec> = {
  keys: ['name', 'secret', 'projects', 'active', 'expiresAt', 'access'],
  read(fields, where) {
    const name = requiredString(fields, 'name', where, { pattern: TOKEN_NAME_RE });
    const secret = optionalString(fields, 'secret', where, { pattern: PAT_SECRET_RE });
    return {
      name,
      secret: secret === undefined ? undefined : strongSecret(secret, at(where, 'secret'), `token "${name}"`),
      ...parseProjects(fields.projects, at(where, 'projects')),
      active: optionalBoolean(fields, 'active', where),
      expiresAt: optionalExpiry(fields, 'expiresAt', where),
      access: optionalAccess(fields, 'access', where),
    };
  },
  unique: { identity: (token) => token.name, what: 'token name' },
};

/**
 * Workspace tokens: project grants are only added (apply never takes a project away);
 * `access` sets the level both ways, and a change applies to the token's next request.
 */
export const tokensSection = defineListSection<TokenSpec>({
  key: 'tokens',
  parse: (raw, path) => readEntries(raw, path, tokenEntry),
  async apply(trx, ws, tokens, result) {
    const projectIds = await projectIdsByRef(trx, ws.id);
    for (const [index, token] of tokens.entries()) {
      const where = at('tokens', index);
      const ids = token.projects.map(
        (ref, refIndex) => projectIds.get(ref) ?? fail(at(at(where, 'projects'), refIndex), `unknown project "${ref}"`),
      );
      const desired = {
        name: token.name,
        secret: token.secret,
        allProjects: token.allProjects,
        projectIds: ids,
        active: token.active,
        expiresAt: token.expiresAt,
        access: token.access,
      };
      const { secret } = await atEntry(where, () => convergeToken(trx, ws.id, desired, ws.now));
      result.tokens[token.name] = secret;
    }
  },
});

/** The names of the tokens a file declares (its `tokens` section, parsed), for sections applied before it. */
export const declaredTokenNames = (file: Readonly<Record<string, unknown>>): string[] =>
  ((file[tokensSection.key] as TokenSpec[] | undefined) ?? []).map((token) => token.name);
