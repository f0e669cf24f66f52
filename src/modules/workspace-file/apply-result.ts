/**
 * What `apply` answers (and `wsx apply --json` prints): the ids of everything the file
 * names, and each token's secret when it was generated or given in the file (null when
 * the token already existed and the file gave no secret, since only a hash is stored).
 */
export interface ApplyResult {
  workspaceId: string;
  teams: Record<string, string>;
  users: Record<string, string>;
  projects: Record<string, string>;
  containers: Record<string, string>;
  tokens: Record<string, string | null>;
  oauthTokens: Record<string, string | null>;
  discussionGroups: Record<string, string>;
  agendaStatuses: Record<string, string>;
  externalOwnerPresets: Record<string, string>;
  webhooks: Record<string, string>;
}

export function emptyResult(workspaceId: string): ApplyResult {
  return {
    workspaceId,
    teams: {},
    users: {},
    projects: {},
    containers: {},
    tokens: {},
    oauthTokens: {},
    discussionGroups: {},
    agendaStatuses: {},
    externalOwnerPresets: {},
    webhooks: {},
  };
}
