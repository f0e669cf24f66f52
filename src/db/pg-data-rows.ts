import { createRequire } from 'node:module';

/**
 * PostgreSQL rows read with one string per row instead of one UTF-8 decoding per column.
 *
 * pg reads each column of a row (a DataRow message) with its own `Buffer#toString('utf8')`,
 * and decoding UTF-8 costs V8 a few ns a byte even for ASCII. A page of 50 issues (about
 * 2,000 columns, 38 KB) spent about a fifth of its node CPU there (`perf`, a PostgreSQL page
 * under load). Read as latin1, a row is one copy (each byte one character), and each column
 * is then a slice of that string. For bytes under 0x80 latin1 and UTF-8 read the same
 * characters, so a row whose column values hold only such bytes comes out exactly as pg
 * would read it; any other row is read column by column as pg reads it.
 */

/** The values of one DataRow whose columns are all ASCII, or undefined: read such a row as pg does. */
export function asciiDataRow(bytes: Buffer, start: number, end: number): Array<string | null> | undefined {
  // First the lengths: where the row's bytes of 0x80 and over are that are not in any value.
  // The column count and each length are big-endian integers (a NULL's length is -1), and
  // any of their bytes may be 0x80 or more.
  let at = start + 2;
  if (at > end) return undefined;
  const count = bytes.readInt16BE(start);
  let highInFraming = (bytes[start] >> 7) + (bytes[start + 1] >> 7);
  for (let column = 0; column < count; column++) {
    if (at + 4 > end) return undefined;
    highInFraming += (bytes[at] >> 7) + (bytes[at + 1] >> 7) + (bytes[at + 2] >> 7) + (bytes[at + 3] >> 7);
    const length = bytes.readInt32BE(at);
    if (length < -1) return undefined;
    at += 4 + Math.max(length, 0);
  }
  // A malformed row is left to pg, which reads (and fails on) it as before.
  if (at !== end) return undefined;
  const text = bytes.toString('latin1', start, end);
  // Each character of 0x80 or more takes two bytes in UTF-8, one in latin1: the difference
  // counts the row's high bytes (Buffer.byteLength is native and fast).
  if (Buffer.byteLength(text, 'utf8') - text.length !== highInFraming) return undefined;
  const values = new Array<string | null>(count);
  at = 2;
  for (let column = 0; column < count; column++) {
    const length = bytes.readInt32BE(start + at);
    at += 4;
    if (length === -1) {
      values[column] = null;
      continue;
    }
    values[column] = text.slice(at, at + length);
    at += length;
  }
  return values;
}

/** The message code of a DataRow ('D'). */
const DATA_ROW = 0x44;

type HandlePacket = (offset: number, code: number, length: number, bytes: Buffer) => unknown;

/** What this module reaches inside pg-protocol (its own names; not in its types). */
interface ProtocolInternals {
  Parser: { prototype: { handlePacket: HandlePacket } };
  DataRowMessage: new (length: number, fields: Array<string | null>) => unknown;
}

let installed = false;

/**
 * Makes pg read DataRows through asciiDataRow. pg-protocol is loaded from where pg finds it,
 * so this is the parser pg runs. Called once the pg driver is loaded; later calls do nothing.
 */
export function readAsciiRowsWhole(): void {
  if (installed) return;
  installed = true;
  const fromPg = createRequire(createRequire(import.meta.url).resolve('pg'));
  const { Parser } = fromPg('pg-protocol/dist/parser.js') as ProtocolInternals;
  const { DataRowMessage } = fromPg('pg-protocol/dist/messages.js') as ProtocolInternals;
  const handlePacket = Parser.prototype.handlePacket;
  // A pg-protocol without these (a future version) is left to read rows its own way.
  if (typeof handlePacket !== 'function' || typeof DataRowMessage !== 'function') return;
  Parser.prototype.handlePacket = function (this: unknown, offset, code, length, bytes) {
    if (code === DATA_ROW) {
      // `length` counts its own four bytes, which come before `offset`.
      const values = asciiDataRow(bytes, offset, offset + length - 4);
      if (values) return new DataRowMessage(length, values);
    }
    return handlePacket.call(this, offset, code, length, bytes);
  };
}
