import type { LookupAddress } from 'node:dns';
import { ToolCallError } from '../tool-executor';
import { OutboundGuard, OutboundDnsResolver } from './outbound-guard';

function guardWith(
  allow: string[],
  zone: Record<string, string[] | Error> = {},
): { guard: OutboundGuard; lookups: string[] } {
  const lookups: string[] = [];
  const resolver: OutboundDnsResolver = async (host) => {
    lookups.push(host);
    const answer = zone[host];
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    if (answer instanceof Error) throw answer;
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { guard: new OutboundGuard({ outboundAllowHosts: allow }, resolver), lookups };
}

async function rejection(promise: Promise<unknown>): Promise<ToolCallError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolCallError);
  return err as ToolCallError;
}

function lookupVia(guard: OutboundGuard, host: string, all: boolean): Promise<{ err: Error | null; result: unknown }> {
  return new Promise((resolve) => {
    guard.lookupFor(80)(host, { all }, (err: Error | null, address: string | LookupAddress[], family?: number) =>
      resolve({ err, result: all ? address : { address, family } }),
    );
  });
}

describe('OutboundGuard', () => {
  const zone = {
    'public.example': ['93.184.216.34'],
    'internal.example': ['10.0.0.7'],
    'mixed.example': ['93.184.216.34', '192.168.1.1'],
    'meta.example': ['169.254.169.254'],
    'v6only.example': ['2606:4700::1'],
    'flaky.example': Object.assign(new Error('getaddrinfo EAI_AGAIN flaky.example'), { code: 'EAI_AGAIN' }),
  };

  describe('assertAllowed', () => {
    it('returns the resolved address of a public host', async () => {
      const { guard } = guardWith([], zone);
      await expect(guard.assertAllowed(new URL('https://public.example/x'))).resolves.toEqual({
        address: '93.184.216.34',
        family: 4,
      });
      await expect(guard.assertAllowed(new URL('http://v6only.example'))).resolves.toEqual({
        address: '2606:4700::1',
        family: 6,
      });
    });

    it('refuses a host when any one of its addresses is private, naming the address and the fix', async () => {
      const { guard } = guardWith([], zone);
      const err = await rejection(guard.assertAllowed(new URL('http://mixed.example/')));
      expect(err.errorClass).toBe('OUTBOUND_BLOCKED');
      expect(err.transient).toBe(false);
      expect(err.reachedRemote).toBe(false);
      expect(err.message).toContain('192.168.1.1');
      expect(err.message).toContain('OUTBOUND_ALLOW_HOSTS');
    });

    it('refuses the cloud metadata address behind a name', async () => {
      const { guard } = guardWith([], zone);
      expect((await rejection(guard.assertAllowed(new URL('http://meta.example/latest')))).message).toContain(
        '169.254.169.254',
      );
    });

    it.each([
      'http://127.0.0.1:8080/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0/',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00::1]/',
    ])('refuses the IP-literal URL %s without a lookup', async (url) => {
      const { guard, lookups } = guardWith([], zone);
      expect((await rejection(guard.assertAllowed(new URL(url)))).errorClass).toBe('OUTBOUND_BLOCKED');
      expect(lookups).toEqual([]);
    });

    it.each(['ftp://public.example/', 'file:///etc/passwd', 'gopher://public.example/', 'ws://public.example/'])(
      'refuses the scheme of %s',
      async (url) => {
        const { guard } = guardWith([], zone);
        expect((await rejection(guard.assertAllowed(new URL(url)))).message).toContain('only http: and https:');
      },
    );

    it('allows a private host listed by name, and a private address listed as IP or CIDR', async () => {
      await expect(
        guardWith(['internal.example'], zone).guard.assertAllowed(new URL('http://internal.example')),
      ).resolves.toEqual({
        address: '10.0.0.7',
        family: 4,
      });
      await expect(
        guardWith(['10.0.0.0/8'], zone).guard.assertAllowed(new URL('http://internal.example')),
      ).resolves.toBeDefined();
      await expect(guardWith(['127.0.0.1'], zone).guard.assertAllowed(new URL('http://127.0.0.1:9/'))).resolves.toEqual(
        {
          address: '127.0.0.1',
          family: 4,
        },
      );
    });

    it('holds an allow-list entry with a port to that port, on the URL default port too', async () => {
      const { guard } = guardWith(['internal.example:8443', '127.0.0.1:11434'], zone);
      await expect(guard.assertAllowed(new URL('http://internal.example:8443/x'))).resolves.toBeDefined();
      const other = await rejection(guard.assertAllowed(new URL('http://internal.example/x')));
      expect(other.message).toContain('Outbound call to internal.example:80 refused: 10.0.0.7 is a');
      expect(other.message).toContain('with :80 to allow only that port');
      await expect(guard.assertAllowed(new URL('http://127.0.0.1:11434/'))).resolves.toBeDefined();
      expect(() => guard.checkUrl(new URL('http://127.0.0.1:3000/'))).toThrow(ToolCallError);
      expect(() => guard.checkUrl(new URL('https://127.0.0.1:11434/'))).not.toThrow();
      expect(() => guardWith(['127.0.0.1:443'], zone).guard.checkUrl(new URL('https://127.0.0.1/'))).not.toThrow();
      expect(() => guardWith(['127.0.0.1:443'], zone).guard.checkUrl(new URL('http://127.0.0.1/'))).toThrow(
        ToolCallError,
      );
    });

    it('vets a connect-time lookup for the port its socket dials', async () => {
      const { guard } = guardWith(['internal.example:8443'], zone);
      const dial = (port: number) =>
        new Promise<Error | null>((resolve) => guard.lookupFor(port)('internal.example', { all: true }, resolve));
      expect(await dial(8443)).toBeNull();
      expect(await dial(8444)).toMatchObject({ errorClass: 'OUTBOUND_BLOCKED' });
    });

    it('allows a listed private IPv4 target reached through a NAT64 address (DNS64 in an IPv6-only cluster)', async () => {
      const { guard } = guardWith(['10.0.0.0/8:5432'], { 'db.example': ['64:ff9b::a00:7'] });
      await expect(guard.assertAllowed(new URL('http://db.example:5432'))).resolves.toMatchObject({ family: 6 });
      expect((await rejection(guard.assertAllowed(new URL('http://db.example:80')))).errorClass).toBe(
        'OUTBOUND_BLOCKED',
      );
    });

    it('does not let an allow-listed NAME cover the metadata, 0.0.0.0 or multicast address its DNS answers', async () => {
      const rebinding = {
        'ollama.internal': ['10.0.0.7'],
        'meta.internal': ['169.254.169.254'],
        'meta6.internal': ['fe80::a9fe:a9fe'],
        'mapped.internal': ['::ffff:169.254.169.254'],
        'zero.internal': ['0.0.0.0'],
        'local.internal': ['127.0.0.1'],
      };
      const names = Object.keys(rebinding);
      const { guard } = guardWith(names, rebinding);
      await expect(guard.assertAllowed(new URL('http://ollama.internal'))).resolves.toMatchObject({
        address: '10.0.0.7',
      });
      await expect(guard.assertAllowed(new URL('http://local.internal'))).resolves.toMatchObject({
        address: '127.0.0.1',
      });
      for (const host of ['meta.internal', 'meta6.internal', 'mapped.internal', 'zero.internal']) {
        const err = await rejection(guard.assertAllowed(new URL(`http://${host}/latest/meta-data/`)));
        expect(err.errorClass).toBe('OUTBOUND_BLOCKED');
        expect(err.message).toContain(`Outbound call to ${host}:80 refused`);
        expect(err.message).toContain('A host name on OUTBOUND_ALLOW_HOSTS does not cover');
      }
      // The connect-time lookup (what a socket dials) holds the same line.
      expect((await lookupVia(guard, 'meta.internal', true)).err).toMatchObject({ errorClass: 'OUTBOUND_BLOCKED' });
      // Listing the address itself is how an operator who means it opens it.
      const opened = guardWith(['meta.internal', '169.254.169.254:80'], rebinding).guard;
      await expect(opened.assertAllowed(new URL('http://meta.internal'))).resolves.toMatchObject({
        address: '169.254.169.254',
      });
    });

    it('does not let an allow-listed address cover another blocked address of the same host', async () => {
      const { guard } = guardWith(['10.0.0.0/8'], zone);
      expect((await rejection(guard.assertAllowed(new URL('http://mixed.example')))).message).toContain('192.168.1.1');
    });

    it('reports DNS failures as not reaching the remote; only EAI_AGAIN is transient', async () => {
      const { guard } = guardWith([], zone);
      const missing = await rejection(guard.assertAllowed(new URL('http://nowhere.example')));
      expect(missing).toMatchObject({ errorClass: 'DNS_FAILED', transient: false, reachedRemote: false });
      expect(missing.message).toBe(
        "Host nowhere.example could not be resolved (ENOTFOUND); check the host name in the URL configured for it (the tool's endpoint, or its service's, provider's or knowledge base's url).",
      );
      const flaky = await rejection(guard.assertAllowed(new URL('http://flaky.example')));
      expect(flaky).toMatchObject({ errorClass: 'DNS_FAILED', transient: true, reachedRemote: false });
      expect(flaky.message).toBe(
        'Host flaky.example could not be resolved (EAI_AGAIN): DNS is temporarily unavailable; call again shortly.',
      );
    });
  });

  describe('checkUrl', () => {
    it('vets IP literals and schemes synchronously and leaves names to the connect-time lookup', () => {
      const { guard, lookups } = guardWith([], zone);
      expect(() => guard.checkUrl(new URL('http://10.0.0.1/'))).toThrow(ToolCallError);
      expect(() => guard.checkUrl(new URL('file:///x'))).toThrow('only http: and https:');
      expect(() => guard.checkUrl(new URL('http://internal.example/'))).not.toThrow();
      expect(() => guard.checkUrl(new URL('http://8.8.8.8/'))).not.toThrow();
      expect(lookups).toEqual([]);
    });
  });

  describe('lookup (the Agent connect hook that pins vetted addresses)', () => {
    it('answers with every vetted address when asked for all, or the first one', async () => {
      const { guard } = guardWith([], zone);
      await expect(lookupVia(guard, 'public.example', true)).resolves.toEqual({
        err: null,
        result: [{ address: '93.184.216.34', family: 4 }],
      });
      await expect(lookupVia(guard, 'public.example', false)).resolves.toEqual({
        err: null,
        result: { address: '93.184.216.34', family: 4 },
      });
    });

    it('fails the connect with the OUTBOUND_BLOCKED error when the answer holds a blocked address', async () => {
      const { guard } = guardWith([], zone);
      const { err } = await lookupVia(guard, 'mixed.example', true);
      expect(err).toBeInstanceOf(ToolCallError);
      expect((err as ToolCallError).errorClass).toBe('OUTBOUND_BLOCKED');
    });

    it('checks the answer it hands to the socket, so a rebinding DNS cannot slip a private address in', async () => {
      let calls = 0;
      const rebinding: OutboundDnsResolver = async () => [
        { address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 },
      ];
      const guard = new OutboundGuard({ outboundAllowHosts: [] }, rebinding);
      await expect(guard.assertAllowed(new URL('http://rebind.example'))).resolves.toEqual({
        address: '93.184.216.34',
        family: 4,
      });
      const { err } = await lookupVia(guard, 'rebind.example', true);
      expect((err as ToolCallError).errorClass).toBe('OUTBOUND_BLOCKED');
    });
  });

  describe('forTenants (OUTBOUND_PLATFORM_ONLY_HOSTS)', () => {
    const reserved = ['internal.example', '10.0.0.0/8', '93.184.216.0/24'];

    it('refuses reserved targets by name or by any address, even allow-listed or public; the platform reaches them', async () => {
      const { guard: platform } = guardWith(['internal.example', '10.0.0.0/8'], zone);
      const tenants = platform.forTenants(reserved);
      for (const url of [
        'http://internal.example',
        'http://10.1.2.3',
        'http://public.example',
        'http://mixed.example',
      ]) {
        const err = await rejection(tenants.assertAllowed(new URL(url)));
        expect(err.errorClass).toBe('OUTBOUND_BLOCKED');
        expect(err.message).toMatch(/reserved for the platform's own tools.*OUTBOUND_PLATFORM_ONLY_HOSTS/);
      }
      await expect(platform.assertAllowed(new URL('http://internal.example'))).resolves.toMatchObject({
        address: '10.0.0.7',
      });
      await expect(platform.assertAllowed(new URL('http://public.example'))).resolves.toMatchObject({
        address: '93.184.216.34',
      });
      // Not reserved: the tenants' guard is the platform's otherwise (a private address still needs the allow list).
      await expect(tenants.assertAllowed(new URL('http://v6only.example'))).resolves.toMatchObject({ family: 6 });
      expect((await rejection(tenants.assertAllowed(new URL('http://meta.example')))).message).toMatch(
        /OUTBOUND_ALLOW_HOSTS/,
      );
    });

    it('refuses a reserved name at once and a reserved address at connect, where a rebinding DNS cannot dodge it', async () => {
      const { guard: platform } = guardWith([], zone);
      const tenants = platform.forTenants(reserved);
      expect(() => tenants.checkUrl(new URL('http://internal.example/x'))).toThrow(/reserved for the platform/);
      expect(() => tenants.checkUrl(new URL('http://public.example/x'))).not.toThrow();
      const { err } = await lookupVia(tenants, 'public.example', true);
      expect((err as ToolCallError).message).toMatch(
        /public\.example:80 refused: it is reserved .*resolves to 93\.184\.216\.34/,
      );
      expect((await lookupVia(platform, 'public.example', true)).err).toBeNull();
    });

    it('refuses a reserved IPv4 target reached through the IPv6 forms that carry it (NAT64 as DNS64 answers, 6to4)', async () => {
      const { guard: platform } = guardWith([], { ...zone, 'dns64.example': ['64:ff9b::5db8:d822'] });
      const tenants = platform.forTenants(reserved);
      for (const url of ['http://[64:ff9b::5db8:d822]/', 'http://[2002:5db8:d822::1]/']) {
        expect(() => tenants.checkUrl(new URL(url))).toThrow(/reserved for the platform/);
        expect(() => platform.checkUrl(new URL(url))).not.toThrow();
      }
      const { err } = await lookupVia(tenants, 'dns64.example', true);
      expect((err as ToolCallError).message).toMatch(/reserved for the platform.*resolves to 64:ff9b::5db8:d822/);
    });

    it('names the setting of an invalid entry', () => {
      const { guard } = guardWith([]);
      expect(() => guard.forTenants(['10.0.0.0/99'])).toThrow(/OUTBOUND_PLATFORM_ONLY_HOSTS entry "10.0.0.0\/99"/);
    });
  });
});
