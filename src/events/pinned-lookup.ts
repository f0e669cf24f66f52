import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

const notFound = (hostname: string) =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });

/**
 * dns.lookup's shape, answering only addresses already resolved and judged: the connection
 * then dials one of them, and no second lookup can answer another (DNS rebinding).
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries: LookupAddress[] = addresses.map((address) => ({ address, family: isIP(address) }));
  return (hostname, options, callback) => {
    const wanted =
      options.family === 4 || options.family === 6
        ? entries.filter((entry) => entry.family === options.family)
        : entries;
    if (wanted.length === 0) return callback(notFound(hostname), '', 0);
    if (options.all) return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, wanted);
    return callback(null, wanted[0].address, wanted[0].family);
  };
}
