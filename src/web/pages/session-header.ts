import { html, type SafeHtml } from '../html.js';
import type { BrowserSession } from '../sessions.js';

/** Who is signed in, to which workspace, and the sign-out button (a form: signing out is a POST). */
export const sessionHeader = (session: BrowserSession): SafeHtml =>
  html`<header class="who">
    <p>
      Signed in as <strong>${session.userName}</strong> (${session.userHandle}) in workspace
      <strong>${session.workspaceName}</strong> (${session.workspaceSlug})
    </p>
    <form method="post" action="/logout" class="inline">
      <input type="hidden" name="csrf" value="${session.csrfToken}" />
      <button type="submit">Sign out</button>
    </form>
  </header>`;
