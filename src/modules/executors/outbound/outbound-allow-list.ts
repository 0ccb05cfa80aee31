import * as ipaddr from 'ipaddr.js';
import { embeddedIPv4, parseAddress, stripBrackets } from './outbound-address.classifier';

/** The ports an entry covers: null for every port. */
type Ports = ReadonlySet<number> | null;

type Cidr = { range: ipaddr.IPv4 | ipaddr.IPv6; bits: number; ports: Ports };

/** `host:port`, `1.2.3.4:port`, `10.0.0.0/8:port`, `*.example.com:port` (one colon), or `[v6 address or CIDR]:port`. */
const WITH_PORT = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/;

/**
 * A parsed list of hosts and addresses (OUTBOUND_ALLOW_HOSTS, OUTBOUND_PLATFORM_ONLY_HOSTS). Entries are host names
 * (exact, case-insensitive; `*.example.com` matches every subdomain, not the apex), IP addresses (`10.0.0.5`, `::1`,
 * `[::1]`) or CIDRs (`10.0.0.0/8`, `fd00::/8`), each optionally limited to one port: `127.0.0.1:11434`,
 * `ollama.internal:11434`, `10.0.0.0/8:5432`, `[::1]:8080`, `[fd00::/8]:443` (an IPv6 entry takes brackets before
 * its port). An entry without a port covers every port; one name may be listed with several ports. IPv4-mapped IPv6
 * addresses are matched as the IPv4 they carry.
 */
export class OutboundAllowList {
  private readonly hosts = new Map<string, Set<number> | null>();
  private readonly suffixes: Array<{ suffix: string; ports: Ports }> = [];
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

  /** Whether a host name (as in a URL, without port) is listed by name for `port`. */
  allowsHost(host: string, port: number): boolean {
    const name = normalizeHost(host);
    if (this.hosts.has(name) && covers(this.hosts.get(name) ?? null, port)) return true;
    return this.suffixes.some((entry) => name.endsWith(entry.suffix) && covers(entry.ports, port));
  }

  /**
   * Whether an address is listed as an IP or falls inside a listed CIDR, for `port`. An IPv6 address that carries an
   * IPv4 one (NAT64, 6to4, IPv4-compatible) is matched as that IPv4 address too, as the guard judges it: the same
   * target reached through a NAT64 prefix is the same entry.
   */
  allowsAddress(address: string, port: number): boolean {
    const addr = parseAddress(address);
    if (!addr) return false;
    const carried = addr.kind() === 'ipv6' ? embeddedIPv4(addr as ipaddr.IPv6) : null;
    const forms = carried ? [addr, carried] : [addr];
    return this.cidrs.some(
      ({ range, bits, ports }) =>
        covers(ports, port) && forms.some((form) => form.kind() === range.kind() && form.match(range, bits)),
    );
  }

  private add(entry: string): void {
    if (!entry) return;
    const withPort = WITH_PORT.exec(entry);
    if (withPort) {
      const port = Number(withPort[3]);
      if (port < 1 || port > 65535) throw new Error(`${this.setting} entry "${entry}" has a port outside 1-65535`);
      return this.addTarget(withPort[1] ?? withPort[2], new Set([port]), entry);
    }
    this.addTarget(entry, null, entry);
  }

  private addTarget(target: string, ports: Set<number> | null, entry: string): void {
    if (target.includes('/')) return this.addCidr(target, ports, entry);
    const addr = isIpLiteral(target) ? parseAddress(target) : null;
    if (addr) {
      this.cidrs.push({ range: addr, bits: addr.kind() === 'ipv4' ? 32 : 128, ports });
      return;
    }
    if (target.startsWith('*.')) {
      this.suffixes.push({ suffix: normalizeHost(target.slice(1)), ports });
      return;
    }
    if (target.includes(':') || target.includes('[') || target.includes(']'))
      throw new Error(
        `${this.setting} entry "${entry}" is neither a host name, an IP address nor a CIDR ` +
          '(write a port as host:port, and an IPv6 address with a port as [::1]:8080)',
      );
    const name = normalizeHost(target);
    const known = this.hosts.get(name);
    if (known === null) return; // already every port
    if (!ports || !known) this.hosts.set(name, ports && new Set(ports));
    else for (const port of ports) known.add(port);
  }

  private addCidr(target: string, ports: Ports, entry: string): void {
    const [base, bits] = target.split('/', 2);
    const addr = parseAddress(base);
    const prefix = Number(bits);
    if (!addr || !/^\d+$/.test(bits)) throw new Error(`${this.setting} entry "${entry}" is not a valid CIDR`);
    // A mapped IPv6 CIDR (::ffff:10.0.0.0/104) becomes the IPv4 CIDR it describes.
    const wasMapped = addr.kind() === 'ipv4' && stripBrackets(base).includes(':');
    const effective = wasMapped ? prefix - 96 : prefix;
    const max = addr.kind() === 'ipv4' ? 32 : 128;
    if (effective < 0 || effective > max)
      throw new Error(`${this.setting} entry "${entry}" has an invalid prefix length`);
    this.cidrs.push({ range: addr, bits: effective, ports });
  }
}

function covers(ports: Ports, port: number): boolean {
  return ports === null || ports.has(port);
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

/** The port a URL (or undici's connect options) connects to: its own, or its scheme's default. */
export function portOf(target: { port?: string | number | null; protocol: string }): number {
  return Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
}
