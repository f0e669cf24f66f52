/**
 * Conditional requests (RFC 9110 §13). Every read answers an ETag; a read sent with the
 * ETag of the answer the caller holds costs the server no body when nothing changed
 * (304), so an idle poll is free. A write sent with If-Match changes the record only if
 * nobody else did since it was read; otherwise it throws `WsxError` with the code
 * `PRECONDITION_FAILED`, whose `details.current` is the record as it now is.
 */

/** A conditional read's outcome: the body and its ETag, or `notModified` when the ETag sent is still current. */
export type Conditional<Body> = { notModified: false; body: Body; etag: string } | { notModified: true; etag: string };

/**
 * The If-Match header for a write based on what was read: the ETag as it came (`"7-…"`), or
 * the record's `version` field.
 */
export function ifMatch(etagOrVersion: string | number): { 'If-Match': string } {
  return { 'If-Match': typeof etagOrVersion === 'number' ? `"${etagOrVersion}"` : etagOrVersion };
}
