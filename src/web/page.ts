import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { html, SafeHtml } from './html.js';

/**
 * The frame of every browser page and the headers it is sent with. The pages work without
 * JavaScript and load nothing: the one stylesheet is inline, allowed by its hash.
 */
const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { max-width: 42rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; }
code, pre { font-family: ui-monospace, monospace; }
pre { white-space: pre-wrap; word-break: break-all; padding: 0.75rem; border: 1px solid #8888; border-radius: 4px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid #8886; vertical-align: top; }
form.inline { display: inline; }
.actions { display: flex; gap: 0.75rem; flex-wrap: wrap; margin-top: 1.5rem; }
button { font: inherit; padding: 0.45rem 1.1rem; border-radius: 4px; border: 1px solid #555; cursor: pointer; }
button.primary { background: #1a5fb4; border-color: #1a5fb4; color: #fff; }
:focus-visible { outline: 3px solid #e66100; outline-offset: 2px; }
.muted { opacity: 0.8; font-size: 0.95rem; }
.destination { font-size: 1.15rem; padding: 0.75rem 1rem; border: 2px solid #e66100; border-radius: 4px; }
header.who { display: flex; justify-content: space-between; align-items: center; gap: 1rem; font-size: 0.95rem; }
`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');
/** Built apart from the page template so the element's text is exactly what was hashed. */
const STYLE_ELEMENT = new SafeHtml(`<style>${STYLE}</style>`);

/**
 * No script at all, the inline style by its hash, forms only to this origin (plus, on the
 * consent page, the client's redirect target: a browser applies form-action to the redirect
 * that answers the form), never framed, never a base URL.
 */
function contentSecurityPolicy(formTargets: string[]): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    'img-src data:',
    `form-action ${["'self'", ...formTargets].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export interface Page {
  title: string;
  body: SafeHtml;
}

export function renderPage({ title, body }: Page): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · wsx</title>
        <link rel="icon" href="data:," />
        ${STYLE_ELEMENT}
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html> `.text;
}

/**
 * Sends a page: never cached (it shows who is signed in and carries a CSRF token), never
 * sniffed, never framed, and no Referer leaves it (its URL may hold a request id).
 */
export function sendPage(reply: FastifyReply, status: number, page: Page, formTargets: string[] = []): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', contentSecurityPolicy(formTargets))
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .send(renderPage(page));
}
