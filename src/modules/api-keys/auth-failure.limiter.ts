import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { AuthFailureLimit } from '@app/common/auth/auth-context';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { GatewayMetrics } from '@app/modules/metrics/gateway-metrics.service';
import { parseAddress } from '@app/modules/executors/outbound/outbound-address.classifier';

const MINUTE_MS = 60_000;
/**
 * Addresses counted at once. Every address that fails takes an entry, so a caller with many addresses (an IPv6
 * prefix holds billions) would grow a plain map without end: past this, the address seen least lately is
 * forgotten, and counts again from nothing, as a new address would.
 */
export const MAX_COUNTED_ADDRESSES = 10_000;

/**
 * The IPv6 prefix length counted as one client: a single subscriber or host is given a whole /64 (and picks any of
 * its 2^64 addresses at will), so counting each address would let one caller fail without end, one address each.
 */
const IPV6_CLIENT_PREFIX = 64;

/**
 * A site is commonly given a /48: 65,536 /64s to fail from, one after the other. Its /64s' failures are also counted
 * together, and the /48 is refused once they reach this many times the limit of one client (a site's real clients
 * whose keys this instance knows still pass, see AuthFailureLimit).
 */
const IPV6_SITE_PREFIX = 48;
export const IPV6_SITE_FACTOR = 16;

/** One count an address's failure adds to, and the failures within a minute at which it is refused. */
interface CountedScope {
  key: string;
  limit: number;
}

/**
 * The counts a failure of `address` adds to: its client, an IPv4 address itself (also when a dual-stack listener
 * reports it IPv4-mapped, `::ffff:a.b.c.d`) or an IPv6 address's /64 (`2001:db8:1:2::/64`), and for IPv6 its /48 too.
 */
function scopesOf(address: string, perMinute: number): CountedScope[] {
  const parsed = parseAddress(address);
  if (parsed === null) return [{ key: address, limit: perMinute }];
  if (parsed.kind() === 'ipv4') return [{ key: parsed.toString(), limit: perMinute }];
  const bytes = parsed.toByteArray();
  return [
    { key: prefixOf(bytes, IPV6_CLIENT_PREFIX), limit: perMinute },
    { key: prefixOf(bytes, IPV6_SITE_PREFIX), limit: perMinute * IPV6_SITE_FACTOR },
  ];
}

/** `2001:db8:1:2::/64` of an IPv6 address's bytes (`bits` a multiple of 16). */
function prefixOf(bytes: number[], bits: number): string {
  const groups: string[] = [];
  for (let i = 0; i < bits / 8; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return `${groups.join(':')}::/${bits}`;
}

/** One address's failed authentications within its minute, which starts at its first failure. */
interface AddressFailures {
  minuteEndsAt: number;
  failures: number;
}

/**
 * AUTH_FAILURES_PER_MINUTE per client address ({@link scopesOf}: an IPv6 address counts by its /64, and its
 * /48 is refused at IPV6_SITE_FACTOR times that) on this instance (the counts live in this process). An address that failed that many times is refused until the minute
 * that began with its first failure is over; then it starts again. A WARN line names the address (never a key) when it is refused, once per minute; the refusals are counted
 * in `gateway_auth_failure_refusals_total`. With the setting at 0 it counts and refuses nothing.
 */
@Injectable()
export class AuthFailureLimiter implements AuthFailureLimit {
  private readonly logger = new Logger('AuthFailures');
  private readonly addresses = new LRUCache<string, AddressFailures>({ max: MAX_COUNTED_ADDRESSES });
  private readonly perMinute: number;

  constructor(
    @Inject(GATEWAY_CONFIG) config: Pick<GatewayConfig, 'authFailuresPerMinute'>,
    private readonly metrics: GatewayMetrics,
  ) {
    this.perMinute = config.authFailuresPerMinute;
  }

  /** Addresses counted now (refused, or failed lately). */
  get size(): number {
    return this.addresses.size;
  }

  secondsRefused(address: string, now = Date.now()): number {
    if (this.perMinute === 0) return 0;
    let seconds = 0;
    for (const scope of scopesOf(address, this.perMinute)) {
      const counted = this.minuteOf(scope.key, now);
      if (counted !== undefined && counted.failures >= scope.limit)
        seconds = Math.max(seconds, Math.ceil((counted.minuteEndsAt - now) / 1000));
    }
    return seconds;
  }

  recordFailure(peer: string, now = Date.now()): void {
    if (this.perMinute === 0) return;
    for (const { key, limit } of scopesOf(peer, this.perMinute)) {
      let counted = this.minuteOf(key, now);
      if (counted === undefined) {
        counted = { minuteEndsAt: now + MINUTE_MS, failures: 0 };
        this.addresses.set(key, counted);
      }
      counted.failures++;
      if (counted.failures === limit)
        this.logger.warn(
          `${key} failed authentication ${counted.failures} times within a minute (AUTH_FAILURES_PER_MINUTE${limit === this.perMinute ? '' : ` x ${IPV6_SITE_FACTOR} for an IPv6 /48`}): its requests without a known key are answered 429 for ${Math.ceil((counted.minuteEndsAt - now) / 1000)} s`,
        );
    }
  }

  recordRefusal(): void {
    this.metrics.recordAuthFailureRefusal();
  }

  /** The address's count while its minute lasts; forgotten once it is over. */
  private minuteOf(address: string, now: number): AddressFailures | undefined {
    const counted = this.addresses.get(address);
    if (counted === undefined || counted.minuteEndsAt > now) return counted;
    this.addresses.delete(address);
    return undefined;
  }
}
