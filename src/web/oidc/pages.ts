import { html } from '../html.js';
import type { Page } from '../page.js';
import { messagePage } from '../pages/messages.js';
import { OIDC_LOGIN_PATH } from '../../http/page-paths.js';
import type { MatchedPerson } from './people.js';

/** What every refusal ends with: the other way in. */
const OTHER_WAY = 'You can also ask an administrator for a one-time sign-in link (wsx login-link).';

/** The pages of an upstream sign-in that did not sign anyone in; `host` names the provider. */
export const oidcPages = {
  badNext: messagePage(
    'Not a page of this server',
    'After signing in you can only be sent to a page of this server, and this address names another place.',
  ),
  badWorkspace: messagePage('No such workspace', 'The workspace in this address is not the name of a workspace.'),
  unreachable: (host: string) =>
    messagePage(
      'Sign-in unavailable',
      `This server could not reach ${host} to sign you in. Try again in a moment.`,
      OTHER_WAY,
    ),
  noFlow: messagePage(
    'Sign-in expired',
    'This sign-in was not started in this browser, or was started more than 10 minutes ago, so it cannot be completed.',
    'Start again from the page you wanted to open.',
  ),
  failed: (host: string) =>
    messagePage(
      'Sign-in not completed',
      `The answer from ${host} could not be checked, so you are not signed in.`,
      'Start again from the page you wanted to open.',
      OTHER_WAY,
    ),
  unverified: (host: string) =>
    messagePage(
      'Email not verified',
      `${host} did not confirm an email address for your account, and this server recognises people by a verified email.`,
      OTHER_WAY,
    ),
  noUser: (email: string) =>
    messagePage(
      'No account here',
      `No user of this server has the email address ${email}, so you are not signed in.`,
      OTHER_WAY,
    ),
};

/**
 * The email belongs to users in several workspaces: each link signs in again, this time to
 * the chosen workspace (the choice travels in the new sign-in's sealed flow, so nothing
 * about this answer has to be trusted later).
 */
export function chooseWorkspacePage(matches: MatchedPerson[], next: string): Page {
  const linkTo = (slug: string) => `${OIDC_LOGIN_PATH}?${new URLSearchParams({ workspace: slug, next }).toString()}`;
  return {
    title: 'Choose a workspace',
    body: html`<h1>Choose a workspace</h1>
      <p>Your email address belongs to a user in each of these workspaces. Which one do you want to sign in to?</p>
      <ul>
        ${matches.map(
          (match) =>
            html`<li>
              <a href="${linkTo(match.workspaceSlug)}">${match.workspaceName}</a> (${match.workspaceSlug})
            </li> `,
        )}
      </ul>`,
  };
}
