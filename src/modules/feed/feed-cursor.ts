import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import { ApiError } from '../../core/errors.js';

/**
 * The change feed's cursor: a position in the workspace's event log (events/event-log.ts),
 * sealed with AES-256-GCM under a key derived from the installation's cursor secret and
 * bound to the workspace. Sealed, not only signed as list cursors are (core/cursor.ts),
 * because positions count every event of the workspace, those of projects the caller
 * cannot see included: a readable position would let a caller count them. The nonce is
 * derived from the position, so one position always gives the same cursor and an idle
 * poll answers the same body (and ETag). A cursor altered, made by another installation
 * or for another workspace is INVALID_CURSOR.
 */

const VERSION = 'wsx-event-feed-cursor-v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

const derive = (secret: Buffer, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `${VERSION}/${purpose}`, 32));

const scopeOf = (workspaceId: string): Buffer => Buffer.from(`events@${workspaceId}`);

export function sealFeedCursor(position: number, workspaceId: string, secret: Buffer): string {
  const plain = Buffer.from(String(position));
  const nonce = createHmac('sha256', derive(secret, 'nonce'))
    .update(scopeOf(workspaceId))
    .update('\n')
    .update(plain)
    .digest()
    .subarray(0, NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', derive(secret, 'seal'), nonce);
  cipher.setAAD(scopeOf(workspaceId));
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The position a cursor carries; INVALID_CURSOR (details.field `after`) for anything else. */
export function openFeedCursor(cursor: string, workspaceId: string, secret: Buffer): number {
  try {
    const bytes = Buffer.from(cursor, 'base64url');
    if (bytes.length <= NONCE_BYTES + TAG_BYTES || bytes.toString('base64url') !== cursor) throw new Error('shape');
    const decipher = createDecipheriv('aes-256-gcm', derive(secret, 'seal'), bytes.subarray(0, NONCE_BYTES));
    decipher.setAAD(scopeOf(workspaceId));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const plain = Buffer.concat([
      decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString();
    const position = Number(plain);
    if (!/^\d{1,15}$/.test(plain) || !Number.isSafeInteger(position)) throw new Error('position');
    return position;
  } catch {
    throw new ApiError(
      'INVALID_CURSOR',
      { field: 'after' },
      {
        suggestion:
          'Pass the pageInfo.nextCursor of an earlier call unchanged, or leave after out to start at the oldest event kept.',
      },
    );
  }
}
