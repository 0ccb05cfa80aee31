import * as ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv4 ranges an outbound call may not reach unless allow-listed (names as ipaddr.js reports them). */
const BLOCKED_V4_RANGES: ReadonlySet<string> = new Set([
  'unspecified', // 0.0.0.0/8
  'broadcast',
  'multicast',
  'linkLocal', // 169.254/16, incl. the cloud metadata address 169.254.169.254
  'loopback', // 127/8
  'carrierGradeNat', // 100.64/10
  'private', // 10/8, 172.16/12, 192.168/16
  'reserved', // 192.0.0/24, TEST-NETs, 198.18/15, 240/4
]);

/** IPv6 ranges blocked as such. */
const BLOCKED_V6_RANGES: ReadonlySet<string> = new Set([
  'unspecified',
  'loopback',
  'linkLocal', // fe80::/10
  'uniqueLocal', // fc00::/7
  'deprecatedSiteLocal', // fec0::/10
  'multicast',
  'discard',
  'teredo', // a tunnel whose real endpoint cannot be checked
  'reserved',
]);

/** Why an address may not be reached: the range it is in (ipaddr.js's name) and how to say it. */
export interface BlockedAddress {
  /** The range as ipaddr.js names it (`linkLocal`, `private`, ...); an embedded IPv4's range for the forms below. */
  range: string;
  /** For messages: `link-local address (incl. cloud metadata)`. */
  reason: string;
}

/**
 * Why an address may not be reached, or `null` when it is a public unicast address.
 * IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4 address they carry.
 */
export function blockedAddress(address: string): BlockedAddress | null {
  let parsed: Address;
  try {
    parsed = ipaddr.parse(stripBrackets(address));
  } catch {
    return { range: 'invalid', reason: 'not an IP address' };
  }
  return blockedRangeOf(parsed);
}

function blockedRangeOf(addr: Address): BlockedAddress | null {
  if (addr.kind() === 'ipv4') {
    const range = addr.range();
    return BLOCKED_V4_RANGES.has(range) ? { range, reason: rangeLabel(range) } : null;
  }
  const v6 = addr as ipaddr.IPv6;
  if (v6.range() === 'rfc6052' && v6.parts[2] !== 0) return { range: 'rfc6052', reason: 'local-use NAT64 address' };
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    const inner = blockedRangeOf(embedded);
    return inner ? { range: inner.range, reason: `${inner.reason} (IPv4 embedded in IPv6)` } : null;
  }
  const range = v6.range();
  return BLOCKED_V6_RANGES.has(range) ? { range, reason: rangeLabel(range) } : null;
}

/**
 * The IPv4 address an IPv6 address carries, for the forms a connect could reach it through (a NAT64 prefix, as DNS64
 * answers in IPv6-only clusters, 6to4, IPv4-mapped and IPv4-compatible); null for any other IPv6 address.
 */
export function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = v6.parts;
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') {
    return v4FromWords(p[6], p[7]);
  }
  if (range === '6to4') return v4FromWords(p[1], p[2]);
  // IPv4-compatible (::/96, deprecated): everything but :: and ::1, which are judged as IPv6.
  if (p.slice(0, 6).every((w) => w === 0) && (p[6] !== 0 || p[7] > 1)) return v4FromWords(p[6], p[7]);
  return null;
}

function v4FromWords(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

const LABELS: Record<string, string> = {
  unspecified: 'unspecified address',
  broadcast: 'broadcast address',
  multicast: 'multicast address',
  linkLocal: 'link-local address (incl. cloud metadata)',
  loopback: 'loopback address',
  carrierGradeNat: 'carrier-grade NAT address',
  private: 'private network address',
  uniqueLocal: 'private network address (unique local)',
  deprecatedSiteLocal: 'site-local address',
  reserved: 'reserved address',
  discard: 'discard-only address',
  teredo: 'Teredo tunnel address',
};

function rangeLabel(range: string): string {
  return LABELS[range] ?? range;
}

/** `[::1]` → `::1` (URL host names keep the brackets). */
export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Parses an address, turning IPv4-mapped IPv6 into IPv4 so `::ffff:10.0.0.1` matches `10.0.0.0/8`. */
export function parseAddress(address: string): Address | null {
  try {
    return ipaddr.process(stripBrackets(address));
  } catch {
    return null;
  }
}
