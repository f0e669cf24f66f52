import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { fail } from './errors.js';
import { readObject } from './fields.js';
import { SECTIONS } from './sections/index.js';
import type { OauthTokenSpec } from './sections/oauth-tokens.js';
import type { ProjectSpec } from './sections/projects.js';
import type { TagSpec } from './sections/tags.js';
import type { TeamSpec } from './sections/teams.js';
import type { TokenSpec } from './sections/tokens.js';
import type { UserSpec } from './sections/users.js';
import { parseWorkspace, type WorkspaceSpec } from './workspace.js';

/** A validated workspace file: each present section parsed by its own `Section.parse`. */
export interface WorkspaceFile {
  workspace: WorkspaceSpec;
  users?: UserSpec[];
  teams?: TeamSpec[];
  projects?: ProjectSpec[];
  tags?: TagSpec[];
  tokens?: TokenSpec[];
  oauthTokens?: OauthTokenSpec[];
  [section: string]: unknown;
}

const TOP_LEVEL_KEYS = ['workspace', ...SECTIONS.map((section) => section.key)];

/** yaml is loaded by the first file given as text, so a server that reads none does not wait for it at start. */
const requireModule = createRequire(import.meta.url);

function readText(text: string): unknown {
  try {
    const yaml = requireModule('yaml') as typeof Yaml;
    // JSON is YAML, so one parser reads both.
    return yaml.parse(text);
  } catch (error) {
    return fail('', `not valid YAML or JSON: ${(error as Error).message}`);
  }
}

/** Checks a whole file (YAML/JSON text or an object) before anything is written. */
export function parseWorkspaceFile(input: object | string): WorkspaceFile {
  const raw = typeof input === 'string' ? readText(input) : input;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    fail('', 'a workspace file must be a YAML or JSON object with a workspace section');
  const fields = readObject(raw, '', TOP_LEVEL_KEYS);
  if (fields.workspace === undefined || fields.workspace === null) fail('workspace', 'is required ({ slug, name })');
  const file: WorkspaceFile = { workspace: parseWorkspace(fields.workspace, 'workspace') };
  for (const section of SECTIONS) {
    const value = fields[section.key];
    if (value !== undefined && value !== null) file[section.key] = section.parse(value, section.key);
  }
  return file;
}
