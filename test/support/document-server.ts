import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A client's web server on a loopback port, as a client being developed serves its Client ID
 * Metadata Document: each path answers as the test says, and every request is counted, so a
 * test sees whether (and how often) the authorization server fetched a document.
 */
export interface DocumentServer {
  /** `http://127.0.0.1:<port><path>`. */
  url: (path: string) => string;
  /** What `path` answers from now on. */
  serve: (path: string, answer: (response: ServerResponse) => void) => void;
  /** Serves `body` as JSON at `path`, with these headers. */
  serveJson: (path: string, body: unknown, headers?: Record<string, string>) => void;
  /** How many requests `path` received. */
  hits: (path: string) => number;
  close: () => Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const answers = new Map<string, (response: ServerResponse) => void>();
  const counts = new Map<string, number>();
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const answer = answers.get(path);
    if (answer) answer(response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const serve = (path: string, answer: (response: ServerResponse) => void) => answers.set(path, answer);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    serve,
    serveJson: (path, body, headers = {}) =>
      serve(path, (response) =>
        response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body)),
      ),
    hits: (path) => counts.get(path) ?? 0,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
