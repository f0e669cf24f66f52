import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where webhook receivers may live. Loopback, private, link-local and unspecified
 * addresses are refused (a subscription must not turn the server into a proxy into its
 * own network) unless the operator allows them (WSX_WEBHOOK_ALLOW_PRIVATE=1).
 */

const refused = new BlockList();
refused.addSubnet('0.0.0.0', 8, 'ipv4');
refused.addSubnet('127.0.0.0', 8, 'ipv4');
refused.addSubnet('10.0.0.0', 8, 'ipv4');
refused.addSubnet('172.16.0.0', 12, 'ipv4');
refused.addSubnet('192.168.0.0', 16, 'ipv4');
refused.addSubnet('169.254.0.0', 16, 'ipv4');
refused.addAddress('::', 'ipv6');
refused.addAddress('::1', 'ipv6');
refused.addSubnet('fc00::', 7, 'ipv6');
refused.addSubnet('fe80::', 10, 'ipv6');

const IPV4_MAPPED_RE = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

export function isRefusedAddress(address: string): boolean {
  const mapped = IPV4_MAPPED_RE.exec(address);
  if (mapped) return refused.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return refused.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** `[::1]` → `::1`: URL keeps IPv6 hosts in brackets, sockets want them bare. */
export const bareHostname = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

const DNS_TIMEOUT_MS = 3000;

async function resolveAll(host: string): Promise<string[] | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => { timer = setTimeout(resolve, DNS_TIMEOUT_MS, undefined); });
  try {
    const found = lookup(host, { all: true, verbatim: true }).then((rows) => rows.map((row) => row.address), () => undefined);
    return await Promise.race([found, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The refused address a receiver URL points to, or undefined when it may be used. A name
 * that does not resolve (now) is accepted: DNS can change, and every delivery checks again.
 */
export async function refusedAddressOf(url: URL): Promise<string | undefined> {
  const host = bareHostname(url).toLowerCase();
  if (isIP(host)) return isRefusedAddress(host) ? host : undefined;
  if (isLocalhostName(host)) return host;
  const addresses = (await resolveAll(host)) ?? [];
  return addresses.find(isRefusedAddress);
}
