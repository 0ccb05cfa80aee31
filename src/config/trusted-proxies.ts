import * as ipaddr from 'ipaddr.js';

/** The names of address ranges Fastify's `trustProxy` (proxy-addr) knows besides addresses and CIDR ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Why an entry of TRUST_PROXY cannot be a proxy Fastify trusts, or undefined when it can: an IPv4 address in
 * four decimal parts, an IPv6 address, either with a /prefix (CIDR), or one of loopback, linklocal, uniquelocal.
 * As strict as proxy-addr, which would otherwise stop the start with a message that names no setting.
 */
export function trustedProxyProblem(entry: string): string | undefined {
  if (RANGE_NAMES.has(entry)) return undefined;
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const isV4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!isV4 && !ipaddr.IPv6.isValid(address)) {
    return `TRUST_PROXY entry "${entry}" is not an IP address, a CIDR range or one of ${[...RANGE_NAMES].join(', ')}: use e.g. 10.0.0.5, 10.0.0.0/8 or fd00::/8`;
  }
  if (slash < 0) return undefined;
  const prefix = entry.slice(slash + 1);
  const maxPrefix = isV4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > maxPrefix) {
    return `TRUST_PROXY entry "${entry}" has prefix length "${prefix}": use a whole number from 0 to ${maxPrefix}`;
  }
  return undefined;
}
