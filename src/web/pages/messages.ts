import { html } from '../html.js';
import { sameOriginPath } from '../next-path.js';
import type { Page } from '../page.js';
import { OIDC_LOGIN_PATH } from '../../http/page-paths.js';
import { shellQuote } from '../shell-quote.js';

/** A page that only says something: a heading and paragraphs. */
export const messagePage = (title: string, ...paragraphs: string[]): Page => ({
  title,
  body: html`<h1>${title}</h1>
    ${paragraphs.map((text) => html`<p>${text}</p> `)}`,
});

/** The link that starts a sign-in at the upstream provider and comes back to `next`. */
const upstreamSignIn = (host: string, next: string | undefined) =>
  html`<p>
    <a href="${OIDC_LOGIN_PATH}${next ? `?next=${encodeURIComponent(next)}` : ''}">Sign in with ${host}</a>
  </p>`;

/**
 * Shown where a page needs a signed-in person: sign-in is by a one-time link an
 * administrator makes, and a link made with `--next` brings the person back here.
 * `intro` says what the person was about to do. With an upstream provider configured
 * (`upstreamHost`), a link to sign in there comes first.
 */
export function signInPage(returnTo: string, intro?: string, upstreamHost?: string): Page {
  const next = sameOriginPath(returnTo);
  // The path is the visitor's to choose (any page address ends up here), and an administrator
  // pastes this into a shell: quoted so that nothing in it runs; the page escapes it as HTML.
  const command = `wsx login-link --workspace WORKSPACE --user YOUR-HANDLE${next ? ` --next ${shellQuote(next)}` : ''}`;
  return {
    title: 'Sign in needed',
    body: html`<h1>Sign in needed</h1>
      ${intro ? html`<p>${intro}</p>` : ''}${upstreamHost ? upstreamSignIn(upstreamHost, next) : ''}
      <p>
        You are not signed in. This server has no passwords: an administrator signs you in by making a one-time sign-in
        link for you, valid for 10 minutes. Ask them to run:
      </p>
      <pre><code>${command}</code></pre>
      <p>Then open the link they give you in this browser${next ? ' and you will come back to this page' : ''}.</p>`,
  };
}

export const signedOutPage = (): Page =>
  messagePage(
    'Signed out',
    'You are signed out of this browser. To sign in again, ask an administrator for a new sign-in link.',
  );

/** A deactivated person (users[].active: false in the workspace file) tried to sign in or answer. */
export const personInactivePage: Page = messagePage(
  'Account deactivated',
  'Your account in this workspace is deactivated, so you cannot sign in or connect applications.',
  'If this is a mistake, ask an administrator to re-activate it.',
);
