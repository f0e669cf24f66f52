import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { ConfigError } from '../config.js';

/**
 * The Prometheus endpoint, on a listener of its own so it can stay on loopback (or an
 * internal network) while the API faces clients, and so scrapes never wait behind the
 * API's rate limit or authentication. It answers GET /metrics and nothing else.
 */
export function metricsServer(registry: Registry, onError: (error: unknown) => void): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        onError(error);
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      },
    );
  });
}

/**
 * Starts listening; answers once the port is bound. A port in use is the operator's to fix,
 * and must not read as the API's own port being taken: it is said in one line.
 */
export function listenOn(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new ConfigError(`${host}:${port} is already in use; set WSX_METRICS_PORT to another port`)
          : error,
      );
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}
