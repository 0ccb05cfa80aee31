import * as ipaddr from 'ipaddr.js';
import { parseAddress, stripBrackets } from './outbound-address.classifier';

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * A parsed list of hosts and addresses (OUTBOUND_ALLOW_HOSTS, OUTBOUND_PLATFORM_ONLY_HOSTS). Entries are host names (exact, case-insensitive; `*.example.com`
 * matches every subdomain, not the apex), IP addresses (`10.0.0.5`, `::1`, `[::1]`) or CIDRs
 * (`10.0.0.0/8`, `fd00::/8`). IPv4-mapped IPv6 addresses are matched as the IPv4 they carry.
 */
export class OutboundAllowList {
  private readonly hosts = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly cidrs: Cidr[] = [];

  /** `setting`: the variable the entries come from, named in the error of an invalid one. */
  constructor(
    entries: readonly string[],
    private readonly setting = 'OUTBOUND_ALLOW_HOSTS',
  ) {
    for (const raw of entries) this.add(raw.trim());
  }

  get isEmpty(): boolean {
    return this.hosts.size === 0 && this.suffixes.length === 0 && this.cidrs.length === 0;
  }

  /** Whether a host name (as in a URL, without port) is listed by name. */
  allowsHost(host: string): boolean {
    const name = normalizeHost(host);
    if (this.hosts.has(name)) return true;
    return this.suffixes.some((suffix) => name.endsWith(suffix));
  }

  /** Whether an address is listed as an IP or falls inside a listed CIDR. */
  allowsAddress(address: string): boolean {
    const addr = parseAddress(address);
    if (!addr) return false;
    return this.cidrs.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits));
  }

  private add(entry: string): void {
    if (!entry) return;
    if (entry.includes('/')) {
      const [base, bits] = entry.split('/', 2);
      const addr = parseAddress(base);
      const prefix = Number(bits);
      if (!addr || !/^\d+$/.test(bits)) throw new Error(`${this.setting} entry "${entry}" is not a valid CIDR`);
      // A mapped IPv6 CIDR (::ffff:10.0.0.0/104) becomes the IPv4 CIDR it describes.
      const wasMapped = addr.kind() === 'ipv4' && stripBrackets(base).includes(':');
      const effective = wasMapped ? prefix - 96 : prefix;
      const max = addr.kind() === 'ipv4' ? 32 : 128;
      if (effective < 0 || effective > max)
        throw new Error(`${this.setting} entry "${entry}" has an invalid prefix length`);
      this.cidrs.push([addr, effective]);
      return;
    }
    const addr = isIpLiteral(entry) ? parseAddress(entry) : null;
    if (addr) {
      this.cidrs.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
      return;
    }
    if (entry.startsWith('*.')) {
      this.suffixes.push(normalizeHost(entry.slice(1)));
      return;
    }
    this.hosts.add(normalizeHost(entry));
  }
}

/** Strict IP literal test: `10` or `0x7f.1` are host names here, not the shorthand IPv4 forms ipaddr.js accepts. */
function isIpLiteral(value: string): boolean {
  const bare = stripBrackets(value);
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare);
}

function normalizeHost(host: string): string {
  const lower = stripBrackets(host).toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}
