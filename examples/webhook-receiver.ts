/**
 * A webhook receiver: a node:http server that checks each delivery's signature with
 * verifyWebhook and acts on the event type.
 *
 *   WSX_WEBHOOK_SECRET=whsec_… PORT=3000 npx tsx --tsconfig examples/tsconfig.json examples/webhook-receiver.ts
 *
 * Subscribe it with POST /api/external/webhooks { "url": "https://…/hooks/wsx", "events": ["*"] };
 * the answer holds the secret. (A receiver on a private address needs WSX_WEBHOOK_ALLOW_PRIVATE=1
 * on the server.)
 */
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '@wsx/client';

const secret = process.env.WSX_WEBHOOK_SECRET ?? '';
const port = Number(process.env.PORT ?? 3000);

/** `event.type` narrows `event.data` to that event's shape (the document's WebhookEvent union). */
function handle(event: WebhookEvent): void {
  switch (event.type) {
    case 'issue.created':
    case 'issue.updated':
      console.log(`${event.type} ${event.data.issue.issueKey} (${event.data.issue.statusKey}) by ${event.actor.id}`);
      break;
    case 'issue.comment.created':
      console.log(`comment on ${event.data.issue.issueKey}: ${event.data.comment.body}`);
      break;
    default:
      // Subscriptions to "*" receive every type, including ones added later: skip what this receiver does not handle.
      console.log(`ignored ${event.type}`);
  }
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    // The signature covers the exact bytes sent: verify the raw text, not re-serialised JSON.
    const payload = Buffer.concat(chunks).toString('utf8');
    let event: WebhookEvent;
    try {
      event = verifyWebhook(payload, req.headers, secret);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      console.warn(error.message);
      res.writeHead(401).end();
      return;
    }
    // Answer 2xx quickly: the server counts a slow or failed answer as a failed delivery and
    // retries it, with the same webhook-id (deduplicate on event.id if handling is not idempotent).
    res.writeHead(204).end();
    handle(event);
  });
});

server.listen(port, () => console.log(`listening on :${port}`));
process.once('SIGINT', () => server.close());
