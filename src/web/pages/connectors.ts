import { html } from '../html.js';
import type { Page } from '../page.js';
import { CONNECTORS_PATH } from '../../http/page-paths.js';
import { scopeList } from '../scopes.js';
import type { BrowserSession } from '../sessions.js';
import { sessionHeader } from './session-header.js';

export interface ConnectorRow {
  grantId: string;
  clientName: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
}

/** An instant as people read it ("2026-01-05 14:03 UTC"), its exact value in the datetime attribute. */
const instant = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;

const revokeForm = (session: BrowserSession, grant: ConnectorRow) =>
  html`<form method="post" action="${CONNECTORS_PATH}/${encodeURIComponent(grant.grantId)}/revoke" class="inline">
    <input type="hidden" name="csrf" value="${session.csrfToken}" />
    <button type="submit" aria-label="Revoke ${grant.clientName}">Revoke</button>
  </form>`;

/** The applications the signed-in person has connected, each with a Revoke button. */
export function connectorsPage(session: BrowserSession, grants: ConnectorRow[]): Page {
  const list =
    grants.length === 0
      ? html`<p>You have not connected any application to this workspace.</p>`
      : html`<table>
          <caption class="muted">
            Applications that may act as you in ${session.workspaceName}
          </caption>
          <thead>
            <tr>
              <th scope="col">Application</th>
              <th scope="col">Access</th>
              <th scope="col">Connected</th>
              <th scope="col">Last used</th>
              <th scope="col"><span class="muted">Action</span></th>
            </tr>
          </thead>
          <tbody>
            ${grants.map(
              (grant) =>
                html`<tr>
                  <td>${grant.clientName}</td>
                  <td>${scopeList(grant.scopes)}</td>
                  <td>${instant(grant.createdAt)}</td>
                  <td>${grant.lastUsedAt ? instant(grant.lastUsedAt) : 'never'}</td>
                  <td>${revokeForm(session, grant)}</td>
                </tr> `,
            )}
          </tbody>
        </table>`;
  return {
    title: 'Connectors',
    body: html`${sessionHeader(session)}
      <h1>Connectors</h1>
      <p>Applications you approved can act as you until you revoke them; revoking ends their access at once.</p>
      ${list}`,
  };
}
