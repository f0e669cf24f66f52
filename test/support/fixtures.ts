import { oatFor, patFor } from './harness.js';

/**
 * The standard test workspace "acme": two teams, three projects, humans in teams, tokens
 * with different grants, and an OAuth token. `globex` is a second tenant for isolation tests.
 *
 * - admin: "*" (every project)      - bot: ENG/API only          - idle: no project
 * - off: inactive token             - alice (OAuth, member of ENG), bob (member of OPS)
 */
export const ACME = {
  workspace: { slug: 'acme', name: 'Acme' },
  users: [
    { handle: 'alice', name: 'Alice Archer', email: 'alice@acme.test' },
    { handle: 'bob', name: 'Bob Builder', email: 'bob@acme.test' },
    { handle: 'carol', name: 'Carol Chen', email: 'carol@acme.test' },
  ],
  teams: [
    { key: 'ENG', name: 'Engineering', default: true, members: ['alice', 'carol'] },
    { key: 'OPS', name: 'Operations', members: ['bob'] },
  ],
  projects: [
    {
      team: 'ENG',
      key: 'API',
      name: 'Public API',
      owner: 'alice',
      containers: [{ name: 'Launch', startDate: '2026-01-05', dueDate: '2026-03-31' }],
    },
    { team: 'ENG', key: 'WEB', name: 'Website' },
    { team: 'OPS', key: 'INFRA', name: 'Infrastructure' },
  ],
  tags: [{ name: 'bug', scopes: ['issues', 'agenda', 'discussion'] }],
  tokens: [
    { name: 'admin', secret: patFor('admin'), projects: '*' },
    { name: 'bot', secret: patFor('bot'), projects: ['ENG/API'] },
    { name: 'idle', secret: patFor('idle'), projects: [] },
    { name: 'off', secret: patFor('off'), projects: '*', active: false },
  ],
  oauthTokens: [{ user: 'alice', secret: oatFor('alice') }],
};

export const GLOBEX = {
  workspace: { slug: 'globex', name: 'Globex' },
  users: [{ handle: 'gina', name: 'Gina Gold', email: 'gina@globex.test' }],
  teams: [{ key: 'ENG', name: 'Globex Engineering', default: true, members: ['gina'] }],
  projects: [{ team: 'ENG', key: 'API', name: 'Globex API' }],
  tokens: [{ name: 'admin', secret: patFor('globex-admin'), projects: '*' }],
};

export const TOKENS = {
  admin: patFor('admin'),
  bot: patFor('bot'),
  idle: patFor('idle'),
  off: patFor('off'),
  alice: oatFor('alice'),
  globex: patFor('globex-admin'),
};
