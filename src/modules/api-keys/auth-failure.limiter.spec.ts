import { Logger } from '@nestjs/common';
import { GatewayMetrics } from '@app/modules/metrics/gateway-metrics.service';
import { AuthFailureLimiter, IPV6_SITE_FACTOR, MAX_COUNTED_ADDRESSES } from './auth-failure.limiter';

const T0 = 1_000_000;

function limiter(authFailuresPerMinute: number): AuthFailureLimiter {
  return new AuthFailureLimiter({ authFailuresPerMinute }, new GatewayMetrics());
}

describe('AuthFailureLimiter', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => (warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined)));
  afterEach(() => warn.mockRestore());

  describe('secondsRefused', () => {
    it('refuses an address once its failures reach the limit, until the minute of its first failure is over', () => {
      const failures = limiter(3);
      failures.recordFailure('10.0.0.1', T0);
      failures.recordFailure('10.0.0.1', T0 + 10_000);
      expect(failures.secondsRefused('10.0.0.1', T0 + 10_000)).toBe(0);
      failures.recordFailure('10.0.0.1', T0 + 20_000);
      expect(failures.secondsRefused('10.0.0.1', T0 + 20_000)).toBe(40);
      expect(failures.secondsRefused('10.0.0.1', T0 + 59_001)).toBe(1);
      expect(failures.secondsRefused('10.0.0.2', T0 + 20_000)).toBe(0);
      // The minute is over: the address starts again from nothing.
      expect(failures.secondsRefused('10.0.0.1', T0 + 60_000)).toBe(0);
      failures.recordFailure('10.0.0.1', T0 + 60_000);
      expect(failures.secondsRefused('10.0.0.1', T0 + 60_000)).toBe(0);
    });

    it('counts the addresses of one IPv6 /64 together: a caller holds the whole prefix, not one address', () => {
      const failures = limiter(2);
      failures.recordFailure('2001:db8:1:2::a', T0);
      failures.recordFailure('2001:db8:1:2:ffff:ffff:ffff:ffff', T0);
      expect(failures.secondsRefused('2001:db8:1:2:abcd::1', T0)).toBe(60);
      expect(failures.secondsRefused('2001:db8:1:3::a', T0)).toBe(0);
      expect(failures.size).toBe(2); // the /64, and its /48
    });

    it("also counts an IPv6 /48's /64s together, refusing the site at IPV6_SITE_FACTOR times the limit", () => {
      const failures = limiter(2);
      // One failure short of the limit from each of many /64s of one /48: no /64 is refused on its own.
      const sixtyFours = 2 * IPV6_SITE_FACTOR - 1;
      for (let i = 0; i < sixtyFours; i++) failures.recordFailure(`2001:db8:1:${i.toString(16)}::1`, T0 + i);
      expect(failures.secondsRefused('2001:db8:1:ffff::1', T0 + 100)).toBe(0);
      failures.recordFailure('2001:db8:1:ffff::1', T0 + 100);
      // The whole /48 now, from a /64 it never failed from; another /48 is not.
      expect(failures.secondsRefused('2001:db8:1:abcd::9', T0 + 100)).toBe(60);
      expect(failures.secondsRefused('2001:db8:2:0::1', T0 + 100)).toBe(0);
      expect(warn.mock.calls.at(-1)[0]).toMatch(/^2001:db8:1::\/48 failed authentication 32 times .* for an IPv6 \/48/);
      // Its minute is over: the site starts again.
      expect(failures.secondsRefused('2001:db8:1:abcd::9', T0 + 60_000)).toBe(0);
    });

    it('counts an IPv4-mapped address (a dual-stack listener) as its IPv4 address, each on its own', () => {
      const failures = limiter(2);
      failures.recordFailure('::ffff:192.0.2.7', T0);
      failures.recordFailure('192.0.2.7', T0);
      expect(failures.secondsRefused('::ffff:192.0.2.7', T0)).toBe(60);
      expect(failures.secondsRefused('::ffff:192.0.2.8', T0)).toBe(0);
      expect(failures.secondsRefused('192.0.2.8', T0)).toBe(0);
    });

    it('refuses nothing and holds nothing with the setting at 0', () => {
      const failures = limiter(0);
      for (let i = 0; i < 100; i++) failures.recordFailure('10.0.0.1', T0);
      expect(failures.secondsRefused('10.0.0.1', T0)).toBe(0);
      expect(failures.size).toBe(0);
    });
  });

  describe('recordFailure', () => {
    it('holds a bounded number of addresses, forgetting the one seen least lately', () => {
      const failures = limiter(1);
      failures.recordFailure('2001:db8:1::1', T0);
      for (let i = 0; i < MAX_COUNTED_ADDRESSES * 2; i++) {
        failures.recordFailure(`2001:db8:${(i + 2).toString(16)}::1`, T0);
        // A refused address that keeps asking stays counted.
        if (i % 1000 === 0) expect(failures.secondsRefused('2001:db8:1::1', T0)).toBe(60);
      }
      expect(failures.size).toBe(MAX_COUNTED_ADDRESSES);
      expect(failures.secondsRefused('2001:db8:1::1', T0)).toBe(60);
      expect(failures.secondsRefused('2001:db8:2::1', T0)).toBe(0);
    });

    it('warns once per address and minute, naming the address', () => {
      const failures = limiter(2);
      for (let i = 0; i < 5; i++) failures.recordFailure('192.0.2.7', T0 + i);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toMatch(/^192\.0\.2\.7 failed authentication 2 times within a minute/);
      for (let i = 0; i < 5; i++) failures.recordFailure('192.0.2.7', T0 + 60_000 + i);
      expect(warn).toHaveBeenCalledTimes(2);
    });
  });
});
