import { isIPv4, isIPv6 } from 'node:net';

/**
 * Whether an IP address is one an outbound fetch may connect to. A verifier fetches URLs that
 * come from credentials and documents written by others, so without this check any issuer could
 * make the service probe its own network (server-side request forgery). Anything that is not a
 * well-formed IPv4 or IPv6 address is not public.
 */
export function isPublicAddress(ip: string): boolean {
  const v4 = ipv4Bytes(ip);
  if (v4) return !V4_NOT_PUBLIC.some(([net, bits]) => inPrefix(v4, net, bits));
  const v6 = ipv6Bytes(ip);
  if (!v6) return false;
  // An IPv4-mapped address reaches the embedded IPv4 host, so only that host's status counts.
  if (inPrefix(v6, MAPPED[0], MAPPED[1])) return isPublicAddress(v6.slice(12).join('.'));
  if (V6_NOT_PUBLIC.some(([net, bits]) => inPrefix(v6, net, bits))) return false;
  // IANA allocates only 2000::/3 as global unicast; everything outside it is special-purpose
  // (loopback, unspecified, ULA, link-local, multicast, IPv4-compatible, discard-only...).
  return inPrefix(v6, GLOBAL_UNICAST[0], GLOBAL_UNICAST[1]);
}

type Prefix = readonly [network: readonly number[], bits: number];

const net4 = (ip: string, bits: number): Prefix => [ipv4Bytes(ip) ?? [], bits];
const net6 = (ip: string, bits: number): Prefix => [ipv6Bytes(ip) ?? [], bits];

const V4_NOT_PUBLIC: readonly Prefix[] = [
  net4('0.0.0.0', 8), // "this network": 0.0.0.0 connects to the local host on Linux
  net4('10.0.0.0', 8), // RFC 1918 private networks
  net4('100.64.0.0', 10), // carrier-grade NAT: the provider's internal side, not the internet
  net4('127.0.0.0', 8), // loopback: the service itself and its sidecars
  net4('169.254.0.0', 16), // link-local, where cloud metadata services (and their credentials) live
  net4('172.16.0.0', 12), // RFC 1918
  net4('192.0.0.0', 24), // IETF protocol assignments, never a public web server
  net4('192.0.2.0', 24), // TEST-NET-1: documentation only
  net4('192.88.99.0', 24), // the retired 6to4 relay anycast (RFC 7526): whoever answers, it is no web server
  net4('192.168.0.0', 16), // RFC 1918
  net4('198.18.0.0', 15), // benchmarking networks, often lab-internal
  net4('198.51.100.0', 24), // TEST-NET-2
  net4('203.0.113.0', 24), // TEST-NET-3
  net4('224.0.0.0', 4), // multicast: no single peer to talk TLS with
  net4('240.0.0.0', 4), // reserved
  net4('255.255.255.255', 32), // limited broadcast (already in 240/4; listed so the rule is visible)
];

const MAPPED = net6('::ffff:0:0', 96);
const GLOBAL_UNICAST = net6('2000::', 3);

const V6_NOT_PUBLIC: readonly Prefix[] = [
  net6('::', 128), // unspecified: connects to the local host
  net6('::1', 128), // loopback
  net6('fc00::', 7), // unique local addresses, the IPv6 private networks
  net6('fe80::', 10), // link-local
  net6('ff00::', 8), // multicast
  net6('2001:db8::', 32), // documentation only (inside 2000::/3, so it must be named)
  net6('2001::', 23), // IETF protocol assignments: Teredo (2001::/32) tunnels to an embedded IPv4 host, benchmarking, ORCHID
  net6('2002::', 16), // 6to4: reaches the IPv4 host embedded in the address, private and loopback ones included
  net6('3fff::', 20), // documentation only (RFC 9637)
  net6('64:ff9b::', 96), // NAT64: a translator reaching whatever IPv4 host is embedded, private ones included
];

function inPrefix(address: readonly number[], network: readonly number[], bits: number): boolean {
  if (address.length !== network.length) return false;
  for (let i = 0; i * 8 < bits; i++) {
    const mask = bits - i * 8 >= 8 ? 0xff : (0xff << (8 - (bits - i * 8))) & 0xff;
    if (((address[i] ?? 0) & mask) !== ((network[i] ?? 0) & mask)) return false;
  }
  return true;
}

function ipv4Bytes(ip: string): number[] | undefined {
  // isIPv4 accepts only canonical dotted decimal, so '0177.1' or '2130706433' never parse here.
  return isIPv4(ip) ? ip.split('.').map(Number) : undefined;
}

function ipv6Bytes(ip: string): number[] | undefined {
  let text = ip.replace(/%.*$/, ''); // a zone id names an interface, not a different host
  if (!isIPv6(text)) return undefined;
  const lastColon = text.lastIndexOf(':');
  const dotted = ipv4Bytes(text.slice(lastColon + 1));
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted;
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const words = (part: string) => (part === '' ? [] : part.split(':').map((w) => Number.parseInt(w, 16)));
  const before = words(head);
  const after = tail === undefined ? [] : words(tail);
  const all = [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
  return all.flatMap((w) => [w >> 8, w & 0xff]);
}
