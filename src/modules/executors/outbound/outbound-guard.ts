import { Inject, Injectable, Optional } from '@nestjs/common';
import { promises as dns, LookupAddress } from 'node:dns';
import { DnsLookupLane, DnsLookupLimiter } from './dns-lookup.limiter';
import type { LookupFunction } from 'node:net';

type LookupOptions = Parameters<LookupFunction>[1];
type LookupCallback = Parameters<LookupFunction>[2];
import { isIP } from 'node:net';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolCallError } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';
import { blockedAddress, stripBrackets } from './outbound-address.classifier';
import { OutboundAllowList, portOf } from './outbound-allow-list';

/** Resolves a host name to every address it has (the injectable DNS boundary of the guard). */
export type OutboundDnsResolver = (hostname: string) => Promise<LookupAddress[]>;

/** Injection token of an {@link OutboundDnsResolver}; default: `dns.lookup(host, {all: true})`. */
const OUTBOUND_DNS_RESOLVER = Symbol('OUTBOUND_DNS_RESOLVER');

/** A vetted address: the one a request to the checked URL connects to. */
export interface VettedAddress {
  address: string;
  family: 4 | 6;
}

const ALLOWED_SCHEMES = new Set(['http:', 'https:']);

const systemResolver: OutboundDnsResolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * Keeps outbound calls (HTTP tools, MCP URLs, web search) away from loopback, private, link-local,
 * CGNAT, unspecified and metadata addresses unless OUTBOUND_ALLOW_HOSTS lists the host or address.
 *
 * DNS rebinding is closed by checking at connect time: {@link lookupFor} is the `connect.lookup` of the
 * shared undici Agent, so the address a socket dials is exactly the address that was vetted.
 * IP-literal hosts never go through a lookup; {@link checkUrl} vets them before each request.
 * Allow-list entries may name a port: the port checked is the one the URL (or the socket) connects to.
 */
@Injectable()
export class OutboundGuard {
  private readonly allowList: OutboundAllowList;
  /** The resolver, bounded (see DnsLookupLimiter); one for this guard and the tenants' guard made from it. */
  private lookups: DnsLookupLimiter;
  /** The limiter's queue this guard's lookups wait in: the tenants' guard has its own (see DnsLookupLimiter). */
  private lookupLane: DnsLookupLane = 'platform';
  /** Set on the tenants' guard only: targets refused whatever the allow list says. */
  private platformOnly: OutboundAllowList | null = null;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'outboundAllowHosts'>,
    @Optional() @Inject(OUTBOUND_DNS_RESOLVER) resolver?: OutboundDnsResolver,
  ) {
    this.allowList = new OutboundAllowList(config.outboundAllowHosts);
    this.lookups = new DnsLookupLimiter(resolver ?? systemResolver);
  }

  /**
   * The guard of tenants' calls: this one, that also refuses every target of `platformOnly`
   * (OUTBOUND_PLATFORM_ONLY_HOSTS) by host name or by any address it resolves to.
   */
  forTenants(platformOnly: readonly string[]): OutboundGuard {
    const guard = new OutboundGuard(this.config);
    guard.lookups = this.lookups;
    guard.lookupLane = 'tenants';
    guard.platformOnly = new OutboundAllowList(platformOnly, 'OUTBOUND_PLATFORM_ONLY_HOSTS');
    return guard;
  }

  /**
   * Resolves the URL's host and returns the first address, after refusing the call when the scheme is not
   * http(s) or ANY resolved address is not public (and neither the host nor that address is allow-listed).
   * @throws ToolCallError `OUTBOUND_BLOCKED` or `DNS_FAILED`, never transient except EAI_AGAIN; never reachedRemote.
   */
  async assertAllowed(url: URL): Promise<VettedAddress> {
    this.checkScheme(url);
    const host = stripBrackets(url.hostname);
    const family = isIP(host);
    const addresses = family ? [{ address: host, family }] : await this.resolveHost(host);
    this.vet(host, portOf(url), addresses);
    const first = addresses[0];
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  /**
   * The synchronous part of the check, cheap enough for every request: the scheme, and the address when the
   * host is an IP literal. Host names are vetted when a socket is opened (see {@link lookup}).
   */
  checkUrl(url: URL): void {
    this.checkScheme(url);
    const host = stripBrackets(url.hostname);
    const port = portOf(url);
    if (isIP(host)) this.vet(host, port, [{ address: host, family: isIP(host) }]);
    else this.vetPlatformOnly(host, port, []);
  }

  /**
   * A `net.connect` lookup for sockets to `port` (a lookup is not told the port): it resolves, vets every address
   * and hands only vetted ones to the socket.
   */
  lookupFor(port: number): LookupFunction {
    return (hostname, options, callback) => this.lookup(hostname, port, options, callback);
  }

  private lookup(hostname: string, port: number, options: LookupOptions, cb: LookupCallback): void {
    this.resolveHost(hostname)
      .then((all) => {
        this.vet(hostname, port, all);
        const wanted =
          options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (wanted.length === 0)
          throw dnsError(
            hostname,
            Object.assign(new Error('no address of the requested family'), { code: 'ENOTFOUND' }),
          );
        if (options.all) cb(null, wanted);
        else cb(null, wanted[0].address, wanted[0].family);
      })
      .catch((err: Error) => cb(err, options.all ? [] : ''));
  }

  private checkScheme(url: URL): void {
    if (!ALLOWED_SCHEMES.has(url.protocol)) {
      throw blocked(`Outbound call to ${url.protocol}//${url.host} refused: only http: and https: URLs are allowed.`);
    }
  }

  private async resolveHost(hostname: string): Promise<LookupAddress[]> {
    try {
      const all = await this.lookups.lookup(hostname, this.lookupLane);
      if (all.length === 0) throw Object.assign(new Error('no addresses'), { code: 'ENOTFOUND' });
      return all;
    } catch (err) {
      throw dnsError(hostname, err);
    }
  }

  /**
   * Refuses when any address is blocked, unless that address is allow-listed, or the host name is and the address is
   * in a range a name may stand for (see {@link NAME_NEVER_COVERS}).
   */
  private vet(hostname: string, port: number, addresses: readonly LookupAddress[]): void {
    this.vetPlatformOnly(hostname, port, addresses);
    const nameAllowed = this.allowList.allowsHost(hostname, port);
    for (const { address } of addresses) {
      const found = blockedAddress(address);
      if (!found || this.allowList.allowsAddress(address, port)) continue;
      if (nameAllowed && !NAME_NEVER_COVERS.has(found.range)) continue;
      const via = address === stripBrackets(hostname) ? '' : ` (${hostname} resolves to ${address})`;
      const fix = nameAllowed
        ? 'A host name on OUTBOUND_ALLOW_HOSTS does not cover this kind of address; list the address or CIDR ' +
          `(with :${port} to allow only that port) if this target is intended.`
        : `Add the host, address or CIDR (with :${port} to allow only that port) to OUTBOUND_ALLOW_HOSTS if this target is intended.`;
      throw blocked(`Outbound call to ${hostname}:${port} refused: ${address} is a ${found.reason}${via}. ${fix}`);
    }
  }

  /** Refuses a target reserved for the platform (tenants' guard only), even when allow-listed or public. */
  private vetPlatformOnly(hostname: string, port: number, addresses: readonly LookupAddress[]): void {
    const reserved = this.platformOnly;
    if (!reserved) return;
    const address = addresses.find((a) => reserved.allowsAddress(a.address, port))?.address;
    if (!reserved.allowsHost(hostname, port) && address === undefined) return;
    const via = address === undefined || address === stripBrackets(hostname) ? '' : ` (it resolves to ${address})`;
    throw blocked(
      `Outbound call to ${hostname}:${port} refused: it is reserved for the platform's own tools, services and models${via} ` +
        "(OUTBOUND_PLATFORM_ONLY_HOSTS); a tenant's tool, MCP service, model provider or knowledge base cannot call it.",
    );
  }
}

/**
 * Ranges an allow-listed host NAME never stands for: only the address or a CIDR listed as such opens them. A name
 * is listed for a service on a private network or this host; if its DNS answer turns into the cloud metadata
 * address (169.254.169.254, fe80::...) or 0.0.0.0 (which reaches this host on any port), that is rebinding.
 */
const NAME_NEVER_COVERS: ReadonlySet<string> = new Set(['linkLocal', 'unspecified', 'multicast', 'broadcast']);

function blocked(message: string): ToolCallError {
  return new ToolCallError(message, ToolErrorClass.OUTBOUND_BLOCKED, { transient: false, reachedRemote: false });
}

function dnsError(hostname: string, err: unknown): Error {
  if (err instanceof ToolCallError) return err;
  const code = (err as { code?: string }).code ?? 'UNKNOWN';
  const transient = code === 'EAI_AGAIN';
  return new ToolCallError(
    transient
      ? `Host ${hostname} could not be resolved (${code}): DNS is temporarily unavailable; call again shortly.`
      : `Host ${hostname} could not be resolved (${code}); check the host name in the URL configured for it (the tool's endpoint, or its service's, provider's or knowledge base's url).`,
    ToolErrorClass.DNS_FAILED,
    { transient, reachedRemote: false, cause: err },
  );
}
