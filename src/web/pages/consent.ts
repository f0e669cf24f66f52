import { html } from '../html.js';
import type { Page } from '../page.js';
import { CONNECTORS_PATH, CONSENT_PATH } from '../../http/page-paths.js';
import { scopeInWords } from '../scopes.js';
import type { BrowserSession } from '../sessions.js';
import { sessionHeader } from './session-header.js';

export interface ConsentRequest {
  requestId: string;
  clientName: string;
  clientId: string;
  /** The host of a client_id that is the URL of the client's metadata document. */
  clientHost?: string;
  scopes: string[];
  resource?: string;
}

const decisionForm = (
  session: BrowserSession,
  requestId: string,
  decision: 'approve' | 'deny',
  label: string,
  primary: boolean,
) =>
  html`<form method="post" action="${CONSENT_PATH}">
    <input type="hidden" name="request" value="${requestId}" />
    <input type="hidden" name="csrf" value="${session.csrfToken}" />
    <input type="hidden" name="decision" value="${decision}" />
    <button type="submit" class="${primary ? 'primary' : 'secondary'}">${label}</button>
  </form>`;

/**
 * The question put to the person: which client (by the name it registered or its metadata
 * document gives, its own claim, and for the latter the host that publishes the document),
 * where the browser goes once they answer (the one fact about the client a person can
 * check, so it stands out right under the question), which workspace, and what it may do
 * there, with Approve and Deny.
 */
export function consentPage(session: BrowserSession, request: ConsentRequest, redirectLabel: string): Page {
  return {
    title: `Connect ${request.clientName}?`,
    body: html`${sessionHeader(session)}
      <h1>Connect <q>${request.clientName}</q> to ${session.workspaceName}?</h1>
      <p class="destination">
        After you answer, your browser goes to
        <strong><code>${redirectLabel}</code></strong>
        and takes the access you approve with it. Approve only if that is the application you started.
      </p>
      <p>
        An application that calls itself <strong>${request.clientName}</strong> (a name it chose, which wsx cannot
        check) asks to act as you, <strong>${session.userName}</strong>, in the workspace
        <strong>${session.workspaceName}</strong> (${session.workspaceSlug}).
      </p>
      ${
        request.clientHost
          ? html`<p>
              It describes itself in a document at <strong><code>${request.clientHost}</code></strong
              >: check that this is the site of the application you started.
            </p>`
          : ''
      }
      <dl>
        <dt>Client id</dt>
        <dd><code>${request.clientId}</code></dd>
        ${
          request.resource
            ? html`<dt>For</dt>
                <dd><code>${request.resource}</code></dd>`
            : ''
        }
      </dl>
      <h2>It will be able to</h2>
      <ul>
        ${request.scopes.map((scope) => html`<li>${scopeInWords(scope)}</li> `)}
      </ul>
      <p class="muted">
        Only approve applications you started yourself. You can take the access back at any time under
        <a href="${CONNECTORS_PATH}">Connectors</a>.
      </p>
      <div class="actions">
        ${decisionForm(session, request.requestId, 'approve', 'Approve', true)}
        ${decisionForm(session, request.requestId, 'deny', 'Deny', false)}
      </div>`,
  };
}
