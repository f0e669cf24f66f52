import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { WebhookEvent } from './types.js';

export { WebhookVerificationError };

/** Request headers as node:http (`req.headers`) or the fetch API (`Headers`) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a webhook delivery's Standard Webhooks signature (webhook-id, webhook-timestamp,
 * webhook-signature; docs/webhooks.md, "Signature") against the subscription's secret
 * (`whsec_…`) and answers the parsed event. `payload` must be the raw body text:
 * re-serialised JSON would not match the signature. Throws `WebhookVerificationError` when
 * the headers are missing, the signature does not match, or the timestamp is more than five
 * minutes off.
 */
export function verifyWebhook(payload: string, headers: WebhookHeaders, secret: string): WebhookEvent {
  const flat: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  try {
    return new Webhook(secret).verify(payload, flat) as WebhookEvent;
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    throw new WebhookVerificationError(`webhook not verified: ${error.message}`);
  }
}
