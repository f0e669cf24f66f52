import type { FastifyServerOptions } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../config.js';

/**
 * Which address a request is counted against. Fastify derives `request.ip` from the socket,
 * or from X-Forwarded-For through the proxies WSX_TRUST_PROXY names; every limit per client
 * address keys on it through clientKey.
 */

/**
 * Fastify's `trustProxy` for the setting. A hop count is given as a function: Fastify reads
 * a bare number as "trust nothing" (it cannot check the nearest peer), while the operator
 * who counted the proxies in front of wsx means the addresses they saw, as Express and
 * proxy-addr read a count.
 */
export function fastifyTrustProxy(setting: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (typeof setting !== 'number') return setting;
  const hops = setting;
  return (_address: string, hop: number) => hop < hops;
}

/**
 * The client a request is charged to: its address, with an IPv4-mapped IPv6 address read as
 * IPv4, and an IPv6 address by its /64 (one host usually holds a whole /64).
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    address = (address as ipaddr.IPv6).toIPv4Address();
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}
