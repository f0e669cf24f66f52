/**
 * The benchmark's webhook receivers, in a process of their own so that answering does not
 * take the dispatcher's event loop: `/fast…` answers 204 at once, `/slow…` after
 * BENCH_SLOW_MS, `/failing…` 500 at once. Sends its port to the parent once listening, and
 * answers a `count` message with the requests received so far per path.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? 2000);

const received = new Map<string, number>();

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const path = req.url ?? '/';
    received.set(path, (received.get(path) ?? 0) + 1);
    if (path.startsWith('/slow')) setTimeout(() => res.writeHead(204).end(), SLOW_MS);
    else res.writeHead(path.startsWith('/failing') ? 500 : 204).end();
  });
});
// Every attempt opens its own connection; the default backlog would refuse some in a burst.
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('message', () => process.send?.({ received: Object.fromEntries(received) }));
process.on('disconnect', () => process.exit(0));
