import { Writable } from 'node:stream';

/** What an app wrote to its log stream (buildApp's `logStream`): each JSON line, parsed and as written. */
export interface LogCapture {
  stream: Writable;
  lines: Array<Record<string, any>>;
  raw: string[];
  /** The lines logged for one request id (an unknown id: none). */
  of: (requestId: unknown) => Array<Record<string, any>>;
}

export function captureLogLines(): LogCapture {
  const lines: Array<Record<string, any>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line));
      }
      done();
    },
  });
  return { stream, lines, raw, of: (requestId) => lines.filter((line) => line.requestId === requestId) };
}
