import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhook receivers may live. Only global unicast addresses are accepted: a
 * subscription must not turn the server into a proxy into its own network (or a port
 * scanner of it, through the delivery log). Ranges come from ipaddr.js's maintained tables,
 * judged after unwrapping the IPv6 forms that carry an IPv4 address (IPv4-mapped, NAT64
 * 64:ff9b::/96, 6to4 2002::/16), so a private IPv4 address cannot hide inside one.
 *
 * WSX_WEBHOOK_ALLOW_PRIVATE=1 also accepts loopback, private (RFC 1918, unique local) and
 * shared (100.64/10) addresses for receivers on the operator's own machine or network.
 * Cloud metadata endpoints, link-local, multicast, broadcast, unspecified and reserved
 * addresses are refused even then: no local receiver lives there.
 */

/** Instance metadata services: refused whatever the settings. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);

/** Ranges a local receiver may use when the operator allows private receivers. */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'shared address space',
  private: 'private',
  uniqueLocal: 'unique local',
  reserved: 'reserved',
  deprecatedSiteLocal: 'site-local',
  rfc6052: 'NAT64 local-use',
  rfc6145: 'IPv4-translated',
  teredo: 'Teredo',
  benchmarking: 'benchmarking',
  discard: 'discard-only',
  metadata: 'cloud metadata',
  notGlobal: 'not globally routed',
};

/** IPv6 global unicast is 2000::/3; ipaddr.js calls anything outside its special ranges "unicast". */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

export interface AddressVerdict {
  /** The address judged: the embedded IPv4 address for the wrapped IPv6 forms. */
  address: string;
  /** A readable range name when refused; undefined when the address may be used. */
  refusedAs: string | undefined;
}

/** The IPv4 address inside an IPv4-mapped, NAT64 (well-known prefix) or 6to4 IPv6 address. */
function unwrap(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() === 'ipv4') return address;
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const bytes = v6.toByteArray();
  if (v6.match(NAT64_WELL_KNOWN)) return ipaddr.fromByteArray(bytes.slice(12, 16));
  if (v6.range() === '6to4') return ipaddr.fromByteArray(bytes.slice(2, 6));
  return v6;
}

function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = address.range();
  if (range === 'unicast' && address.kind() === 'ipv6' && !(address as ipaddr.IPv6).match(GLOBAL_UNICAST_V6))
    return 'notGlobal';
  return range;
}

/** Judges one IP address (as text) under the policy; a string that is no IP address is refused. */
export function judgeAddress(text: string, allowPrivate: boolean): AddressVerdict {
  if (!ipaddr.isValid(text)) return { address: text, refusedAs: 'reserved' };
  const address = unwrap(ipaddr.parse(text));
  const shown = address.toString();
  if (METADATA_ADDRESSES.has(shown)) return { address: shown, refusedAs: RANGE_NAMES.metadata };
  const range = rangeOf(address);
  const allowed = range === 'unicast' || (allowPrivate && PRIVATE_RANGES.has(range));
  return { address: shown, refusedAs: allowed ? undefined : (RANGE_NAMES[range] ?? range) };
}

/** Whether WSX_WEBHOOK_ALLOW_PRIVATE=1 accepts an address refused as `refusedAs` (loopback, private, shared). */
export const allowedWhenPrivate = (refusedAs: string | undefined): boolean =>
  refusedAs !== undefined && [...PRIVATE_RANGES].some((range) => RANGE_NAMES[range] === refusedAs);

/** How to accept a receiver on this machine or network, said where one is refused. */
export const ALLOW_PRIVATE_HINT =
  'For a receiver on this machine or your own network (local development), start the server with WSX_WEBHOOK_ALLOW_PRIVATE=1; otherwise use a URL of a public host.';

export const refusalMessage = (verdict: AddressVerdict): string =>
  `receiver address ${verdict.address} is not a public unicast address (${verdict.refusedAs})`;

/** `[::1]` → `::1`: URL keeps IPv6 hosts in brackets, sockets want them bare. */
export const bareHostname = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

export const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/** Resolves a host name to every address it has now (rejects when it has none). */
export type HostLookup = (host: string) => Promise<string[]>;

const systemLookup: HostLookup = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((row) => row.address);

let hostLookup: HostLookup = systemLookup;

/** Replaces name resolution for receivers (tests); answers a function that puts the previous one back. */
export function useHostLookup(next: HostLookup): () => void {
  const previous = hostLookup;
  hostLookup = next;
  return () => {
    hostLookup = previous;
  };
}

/** Resolves through the current lookup; every receiver name goes through here, at subscribe and at delivery. */
export const lookupHost = (host: string): Promise<string[]> => hostLookup(host);

const DNS_TIMEOUT_MS = 3000;

/** The addresses of a name now, or undefined when it does not resolve within 3 s. */
export async function resolveWithin(host: string, timeoutMs = DNS_TIMEOUT_MS): Promise<string[] | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, undefined);
  });
  try {
    const found = lookupHost(host).then(
      (addresses) => addresses,
      () => undefined,
    );
    return await Promise.race([found, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a receiver URL's host resolved to, learned before a write transaction opens. */
export interface ResolvedReceiver {
  url: string;
  addresses: string[];
}

/**
 * Resolves the host of a receiver URL when it is a name (an IP literal or localhost needs
 * no lookup). Run before the write transaction: a slow DNS answer must not hold the lock.
 */
export async function resolveReceiver(url: string): Promise<ResolvedReceiver | undefined> {
  const host = bareHostname(new URL(url)).toLowerCase();
  if (isIP(host) || isLocalhostName(host)) return undefined;
  return { url, addresses: (await resolveWithin(host)) ?? [] };
}

/**
 * The first refused address a receiver URL points to, or undefined when it may be used. A
 * name that does not resolve (now) is accepted: DNS can change, and every delivery checks
 * again. `addresses` is what resolveReceiver learned for this URL, when already known.
 */
export async function refusedAddressOf(
  url: URL,
  allowPrivate: boolean,
  addresses?: string[],
): Promise<AddressVerdict | undefined> {
  const host = bareHostname(url).toLowerCase();
  if (isIP(host)) {
    const verdict = judgeAddress(host, allowPrivate);
    return verdict.refusedAs ? verdict : undefined;
  }
  if (isLocalhostName(host)) return allowPrivate ? undefined : { address: host, refusedAs: 'loopback' };
  const found = addresses ?? (await resolveWithin(host)) ?? [];
  return found.map((address) => judgeAddress(address, allowPrivate)).find((verdict) => verdict.refusedAs);
}
