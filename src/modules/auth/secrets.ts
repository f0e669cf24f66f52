import { createHash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `prefix` + 40 random base62 characters (rejection sampling keeps them uniform). */
export function generateSecret(prefix: 'svc_pat_' | 'svc_oat_'): string {
  let out = '';
  while (out.length < 40) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && out.length < 40) out += BASE62[byte % 62];
    }
  }
  return prefix + out;
}

/** Only this hash is stored; lookups go by hash, so comparison never touches plaintext. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

const CREDENTIAL_RE = /^svc_(pat|oat)_[0-9A-Za-z]{32,}$/;
export const looksLikeCredential = (value: string): boolean => CREDENTIAL_RE.test(value);
