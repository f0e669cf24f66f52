import { normaliseDatetime } from '../../core/values.js';

/**
 * Credential expiry: an instant after which a token is refused like a revoked one. It is
 * written as ISO 8601 with an offset (the file, `token create --expires-at`) and stored in
 * UTC; null means the credential never expires.
 */

export const EXPIRY_FORMAT = 'an ISO 8601 datetime with an offset, e.g. 2026-12-31T23:59:59Z';

/** The stored (UTC) form of an expiry, or undefined when the value is not one. */
export const parseExpiry = (value: unknown): string | undefined => normaliseDatetime(value);
