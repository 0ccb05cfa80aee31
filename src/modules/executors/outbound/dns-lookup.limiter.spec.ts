import type { LookupAddress } from 'node:dns';
import { DnsLookupLimiter, OUTBOUND_CONNECT_TIMEOUT_MS } from './dns-lookup.limiter';
import { OutboundGuard } from './outbound-guard';
import { OutboundHttpAgent } from './outbound-http.agent';

/** A resolver whose answers the test releases one host at a time; it records how many lookups run at once. */
function slowResolver() {
  const pending = new Map<string, () => void>();
  const calls: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const resolve = async (host: string): Promise<LookupAddress[]> => {
    calls.push(host);
    mostAtOnce = Math.max(mostAtOnce, ++running);
    await new Promise<void>((release) => pending.set(host, release));
    running--;
    if (host.startsWith('bad')) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return [{ address: '93.184.216.34', family: 4 }];
  };
  const answer = async (host: string) => {
    for (let i = 0; i < 100 && !pending.has(host); i++) await new Promise((r) => setImmediate(r));
    const release = pending.get(host);
    if (!release) throw new Error(`no lookup of ${host} is running`);
    pending.delete(host);
    release();
  };
  return { resolve, answer, calls, running: () => running, mostAtOnce: () => mostAtOnce };
}

const settle = () => new Promise((r) => setImmediate(r));

/**
 * The tenants' lookups of `names` hold every slot (`limit`) and wait behind them: the platform's lookup, asked now,
 * gets the first slot freed (not the next of the tenants' names); then every lookup is answered.
 */
async function expectPlatformServedFirst(
  dns: ReturnType<typeof slowResolver>,
  platform: OutboundGuard,
  names: readonly string[],
  limit: number,
  tenantChecks: readonly Promise<unknown>[],
): Promise<void> {
  const platformCheck = platform.assertAllowed(new URL('https://model.example/'));
  await dns.answer(names[0]);
  await settle();
  expect(dns.calls.slice(limit)).toEqual(['model.example']);
  await dns.answer('model.example');
  await expect(platformCheck).resolves.toMatchObject({ address: '93.184.216.34' });
  for (const h of names.slice(1)) await dns.answer(h);
  await Promise.all(tenantChecks);
}

describe('DnsLookupLimiter', () => {
  it('runs at most maxConcurrent lookups at once; the others start as slots free up, failed ones included', async () => {
    const dns = slowResolver();
    const limiter = new DnsLookupLimiter(dns.resolve, 2);
    const results = ['bad1.example', 'a.example', 'b.example', 'c.example'].map((h) =>
      limiter.lookup(h).then(
        () => 'ok',
        () => 'failed',
      ),
    );
    await settle();
    expect(dns.calls).toEqual(['bad1.example', 'a.example']);
    await dns.answer('bad1.example');
    await settle();
    expect(dns.calls).toEqual(['bad1.example', 'a.example', 'b.example']);
    for (const h of ['a.example', 'b.example', 'c.example']) await dns.answer(h);
    expect(await Promise.all(results)).toEqual(['failed', 'ok', 'ok', 'ok']);
    expect(dns.mostAtOnce()).toBe(2);
  });

  it('makes one lookup for concurrent requests of the same name, and a new one once it is answered', async () => {
    const dns = slowResolver();
    const limiter = new DnsLookupLimiter(dns.resolve, 2);
    const both = Promise.all([limiter.lookup('a.example'), limiter.lookup('a.example')]);
    await dns.answer('a.example');
    expect((await both).map((r) => r[0].address)).toEqual(['93.184.216.34', '93.184.216.34']);
    const again = limiter.lookup('a.example');
    await dns.answer('a.example');
    await again;
    expect(dns.calls).toEqual(['a.example', 'a.example']);
  });

  it('fails a lookup at once, as EAI_AGAIN, when too many are already waiting', async () => {
    const dns = slowResolver();
    const limiter = new DnsLookupLimiter(dns.resolve, 1);
    const waiting = Array.from({ length: 257 }, (_, i) => limiter.lookup(`h${i}.example`).catch(() => undefined));
    await expect(limiter.lookup('one-more.example')).rejects.toMatchObject({ code: 'EAI_AGAIN' });
    for (let i = 0; i < 257; i++) await dns.answer(`h${i}.example`);
    await Promise.all(waiting);
    expect(dns.mostAtOnce()).toBe(1);
  });

  it('drops a lookup that waited past the connect timeout when its turn comes, without running it', async () => {
    const dns = slowResolver();
    let now = 1_000_000;
    const limiter = new DnsLookupLimiter(dns.resolve, 1, () => now);
    const stuck = limiter.lookup('stuck.example');
    const forgotten = limiter.lookup('forgotten.example').then(
      () => 'resolved',
      (err: { code?: string }) => err.code,
    );
    now += OUTBOUND_CONNECT_TIMEOUT_MS / 2;
    const fresh = limiter.lookup('fresh.example');
    now += OUTBOUND_CONNECT_TIMEOUT_MS / 2 + 1;
    await dns.answer('stuck.example');
    await stuck;
    expect(await forgotten).toBe('EAI_AGAIN');
    await dns.answer('fresh.example');
    await fresh;
    expect(dns.calls).toEqual(['stuck.example', 'fresh.example']);
  });

  it('makes room in a full queue by dropping the lookups that waited past the connect timeout, not the new one', async () => {
    const dns = slowResolver();
    let now = 1_000_000;
    const limiter = new DnsLookupLimiter(dns.resolve, 1, () => now);
    const stuck = limiter.lookup('stuck.example');
    const forgotten = Array.from({ length: 256 }, (_, i) =>
      limiter.lookup(`h${i}.example`).then(
        () => 'resolved',
        (err: { code?: string }) => err.code,
      ),
    );
    now += OUTBOUND_CONNECT_TIMEOUT_MS + 1;
    const late = limiter.lookup('late.example').then(
      (addresses) => addresses[0].address,
      (err: { code?: string }) => err.code,
    );
    await dns.answer('stuck.example');
    await stuck;
    expect(new Set(await Promise.all(forgotten))).toEqual(new Set(['EAI_AGAIN']));
    await dns.answer('late.example');
    expect(await late).toBe('93.184.216.34');
    expect(dns.calls).toEqual(['stuck.example', 'late.example']);
  });

  it('keeps a queued lookup another caller asked for since, however long its first caller waited', async () => {
    const dns = slowResolver();
    let now = 1_000_000;
    const limiter = new DnsLookupLimiter(dns.resolve, 1, () => now);
    const stuck = limiter.lookup('stuck.example');
    const first = limiter.lookup('wanted.example').catch(() => 'dropped');
    now += OUTBOUND_CONNECT_TIMEOUT_MS - 1;
    const second = limiter.lookup('wanted.example');
    now += 2;
    await dns.answer('stuck.example');
    await stuck;
    await dns.answer('wanted.example');
    expect((await second)[0].address).toBe('93.184.216.34');
    expect(await first).not.toBe('dropped');
    expect(dns.calls).toEqual(['stuck.example', 'wanted.example']);
  });

  it("bounds the guard's lookups, the tenants' guard sharing the same slots", async () => {
    const dns = slowResolver();
    const platform = new OutboundGuard({ outboundAllowHosts: [] }, dns.resolve);
    const tenants = platform.forTenants([]);
    const checks = [
      platform.assertAllowed(new URL('https://p1.example/')),
      tenants.assertAllowed(new URL('https://t1.example/')),
      tenants.assertAllowed(new URL('https://t2.example/')),
      platform.assertAllowed(new URL('https://p2.example/')),
    ];
    await settle();
    const limit = Math.max(1, Math.floor(Number(process.env.UV_THREADPOOL_SIZE || 4) / 2));
    expect(dns.running()).toBe(Math.min(limit, 4));
    for (const h of ['p1.example', 't1.example', 't2.example', 'p2.example']) await dns.answer(h);
    await Promise.all(checks);
    expect(dns.mostAtOnce()).toBe(Math.min(limit, 4));
  });

  it("keeps the platform's lookups out of the tenants' queue: a full one neither refuses nor delays them", async () => {
    const dns = slowResolver();
    const platform = new OutboundGuard({ outboundAllowHosts: [] }, dns.resolve);
    const tenants = platform.forTenants([]);
    const limit = Math.max(1, Math.floor(Number(process.env.UV_THREADPOOL_SIZE || 4) / 2));
    const names = Array.from({ length: limit + 256 }, (_, i) => `t${i}.example`);
    const tenantChecks = names.map((h) => tenants.assertAllowed(new URL(`https://${h}/`)).catch(() => undefined));
    await expect(tenants.assertAllowed(new URL('https://one-more.example/'))).rejects.toMatchObject({
      errorClass: 'DNS_FAILED',
    });
    await expectPlatformServedFirst(dns, platform, names, limit, tenantChecks);
  });

  it("gives tenants' calls a queue of their own with OUTBOUND_PLATFORM_ONLY_HOSTS empty too", async () => {
    const dns = slowResolver();
    const agent = new OutboundHttpAgent(new OutboundGuard({ outboundAllowHosts: [] }, dns.resolve), {
      outboundPlatformOnlyHosts: [],
    });
    try {
      const limit = Math.max(1, Math.floor(Number(process.env.UV_THREADPOOL_SIZE || 4) / 2));
      const names = Array.from({ length: limit + 3 }, (_, i) => `t${i}.example`);
      const tenantChecks = names.map((h) => agent.scope('acme').guard.assertAllowed(new URL(`https://${h}/`)));
      await settle();
      await expectPlatformServedFirst(dns, agent.scope(null).guard, names, limit, tenantChecks);
    } finally {
      await agent.onApplicationShutdown();
    }
  });
});
