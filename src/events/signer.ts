import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` +
 * base64 of random bytes; the signature is `v1,` + base64 HMAC-SHA256, keyed with the
 * decoded bytes, over `<id>.<timestamp>.<body>`. Any Standard Webhooks library verifies it.
 */

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
const BASE64_RE = /^[A-Za-z0-9+/]+={0,2}$/;

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** A secret given by an operator: whsec_ + base64 of 24 to 64 bytes. */
export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith(SECRET_PREFIX)) return false;
  const encoded = value.slice(SECRET_PREFIX.length);
  if (encoded.length % 4 !== 0 || !BASE64_RE.test(encoded)) return false;
  const length = Buffer.from(encoded, 'base64').length;
  return length >= 24 && length <= 64;
}

function signature(secret: string, signed: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`;
}

/**
 * The `webhook-signature` value: one signature per secret, space-separated, as the
 * specification allows. During a secret rotation both the new and the previous secret
 * sign, so a receiver holding either one verifies.
 */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  const signed = `${messageId}.${timestampSeconds}.${body}`;
  return secrets.map((secret) => signature(secret, signed)).join(' ');
}
