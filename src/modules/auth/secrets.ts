import { hash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `prefix` + 40 random base62 characters (rejection sampling keeps them uniform). `svc_ort_`
 * is an OAuth refresh token: never an API credential (looksLikeCredential refuses it).
 */
export function generateSecret(prefix: 'svc_pat_' | 'svc_oat_' | 'svc_ort_'): string {
  let out = '';
  while (out.length < 40) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && out.length < 40) out += BASE62[byte % 62];
    }
  }
  return prefix + out;
}

/**
 * Only this hash is stored; lookups go by hash, so comparison never touches plaintext. Every
 * API request hashes its credential: the one-shot form skips making a Hash object for it.
 */
export const hashSecret = (secret: string): string => hash('sha256', secret, 'hex');

const CREDENTIAL_RE = /^svc_(pat|oat)_[0-9A-Za-z]{32,}$/;
export const looksLikeCredential = (value: string): boolean => CREDENTIAL_RE.test(value);

/**
 * The strength rule for secrets an operator writes into the workspace file (generated
 * ones are 40 random base62 characters and always pass). After the prefix, a secret must:
 *
 * 1. use at least MIN_DISTINCT different characters;
 * 2. reach MIN_BITS by the estimate length × log2(number of different characters);
 * 3. hold no run of MAX_RUN characters that are all the same (aaaaaaaa) or step by one
 *    (abcdefgh, 87654321).
 *
 * It catches placeholders and keyboard patterns, not every weak choice. Random secrets
 * pass: 32 random base62 characters estimate at 130 bits or more, 64 hex characters at
 * about 250, and a run of 8 in them is vanishingly rare; 32 hex characters (128 bits at
 * best) usually fall short, so use 64.
 */
const MIN_DISTINCT = 12;
const MIN_BITS = 128;
const MAX_RUN = 8;

/** Why a secret is too weak, or undefined when it passes the rule above. */
export function secretWeakness(secret: string): string | undefined {
  const body = secret.replace(/^svc_(pat|oat)_/, '');
  const distinct = new Set(body).size;
  if (distinct < MIN_DISTINCT) return `it uses ${distinct} different characters; at least ${MIN_DISTINCT} are needed`;
  const bits = Math.floor(body.length * Math.log2(distinct));
  if (bits < MIN_BITS)
    return (
      `its strength is estimated at ${bits} bits (length × log2 of its ${distinct} different characters); ` +
      `at least ${MIN_BITS} are needed`
    );
  let same = 1;
  let step = 1;
  for (let i = 1; i < body.length; i++) {
    const delta = body.charCodeAt(i) - body.charCodeAt(i - 1);
    same = delta === 0 ? same + 1 : 1;
    const previousDelta = i >= 2 ? body.charCodeAt(i - 1) - body.charCodeAt(i - 2) : 0;
    step = Math.abs(delta) === 1 ? (step > 1 && delta === previousDelta ? step + 1 : 2) : 1;
    if (same >= MAX_RUN) return `it repeats one character ${MAX_RUN} or more times in a row`;
    if (step >= MAX_RUN) return `it holds a run of ${MAX_RUN} or more consecutive characters (like abcdefgh)`;
  }
  return undefined;
}
