import { NacosNamingClient } from 'nacos';
import {
  NacosNamingAdapter,
  type NacosInstance,
  type NacosServiceRef,
} from '@app/modules/mcp-services/nacos/nacos-naming.adapter';
import { NacosTestServer } from '@test/support/nacos/nacos-test-server';
import { waitFor } from '@test/support/wait-for';

const NS = 'mcp-dev';
const GROUP = 'MCP_GROUP';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

function ref(serviceName: string, namespaceId = NS, groupName = GROUP): NacosServiceRef {
  return { serviceName, groupName, namespaceId };
}

function addresses(list: NacosInstance[] | undefined): string[] {
  return (list ?? []).map((i) => `${i.ip}:${i.port}`).sort();
}

/** Subscribes and keeps every list the listener receives. */
function watch(adapter: NacosNamingAdapter, service: NacosServiceRef) {
  const lists: NacosInstance[][] = [];
  const stop = adapter.subscribe(service, (list) => lists.push(list));
  return { lists, stop, latest: () => addresses(lists.at(-1)) };
}

/** The internals of the client the adapter reaches (see NamingClient in nacos-naming.adapter.ts). */
interface ClientInternals {
  _serverProxy: { queryList(...args: unknown[]): Promise<string> };
  _hostReactor: {
    /** Per service key, its scheduled poll (a Node Timeout: `_destroyed` once cleared). */
    _futureMap: Map<string, { timer: { _destroyed: boolean } }>;
    _serviceInfoMap: Map<string, unknown>;
    _updatingSet: Set<string>;
  };
}

/** The nacos client the adapter made for the namespace NS. */
function clientOf(adapter: NacosNamingAdapter): Promise<ClientInternals> {
  return (adapter as unknown as { clients: Map<string, Promise<ClientInternals>> }).clients.get(NS)!;
}

type ClientInstance = Parameters<NacosNamingClient['registerInstance']>[1];

/** The client's typings demand fields it fills in itself (instanceId, healthy, enabled) and omit metadata. */
function clientInstance(spec: {
  ip: string;
  port: number;
  weight?: number;
  metadata?: Record<string, string>;
}): ClientInstance {
  return spec as unknown as ClientInstance;
}

/** A real client that registers instances, as an MCP server process would. */
async function registrarFor(addr: string, namespace: string): Promise<NacosNamingClient> {
  const client = new NacosNamingClient({ serverList: addr, namespace, logger: silent as unknown as typeof console });
  await client.ready();
  return client;
}

describe('NacosNamingAdapter with the real nacos client against the Nacos v1 test server', () => {
  describe('with UDP push (stock server timings)', () => {
    const server = new NacosTestServer({ clientBeatIntervalMs: 300 });
    let adapter: NacosNamingAdapter;
    let registrar: NacosNamingClient;

    beforeAll(async () => {
      const { addr } = await server.start();
      // Created first: its heartbeats start about 10 s after construction, checked by the last test.
      registrar = await registrarFor(addr, NS);
      await registrar.registerInstance(
        'beacon',
        clientInstance({ ip: '10.1.0.1', port: 7001, metadata: { 'mcp.path': '/beacon' } }),
        GROUP,
      );
      adapter = new NacosNamingAdapter({ serverAddr: addr, namespace: 'public' });
    });

    afterAll(async () => {
      await adapter.close();
      await (registrar as unknown as { close(): Promise<void> }).close();
      await server.stop();
    });

    it('reads only healthy, enabled instances of the asked clusters, with weight and metadata', async () => {
      server.registerInstance(NS, GROUP, 'catalog', {
        ip: '10.0.0.1',
        port: 8080,
        weight: 2.5,
        metadata: { 'mcp.path': '/a', 'mcp.transport': 'sse' },
      });
      server.registerInstance(NS, GROUP, 'catalog', { ip: '10.0.0.2', port: 8080, healthy: false });
      server.registerInstance(NS, GROUP, 'catalog', { ip: '10.0.0.3', port: 8080, enabled: false });
      server.registerInstance(NS, GROUP, 'catalog', { ip: '10.0.0.4', port: 8080, clusterName: 'EAST' });

      await expect(adapter.getHealthyInstances(ref('catalog'))).resolves.toEqual([
        {
          instanceId: '10.0.0.1#8080#DEFAULT#MCP_GROUP@@catalog',
          ip: '10.0.0.1',
          port: 8080,
          weight: 2.5,
          healthy: true,
          enabled: true,
          metadata: { 'mcp.path': '/a', 'mcp.transport': 'sse' },
          clusterName: 'DEFAULT',
        },
      ]);
      expect(addresses(await adapter.getHealthyInstances({ ...ref('catalog'), clusters: ['EAST'] }))).toEqual([
        '10.0.0.4:8080',
      ]);
      expect(server.instances(NS, GROUP, 'catalog')).toHaveLength(4);
    });

    it('delivers the initial list, then instances registered by a real client and by the control API, by UDP push', async () => {
      server.registerInstance(NS, GROUP, 'weather', { ip: '10.0.1.1', port: 9000 });
      const sub = watch(adapter, ref('weather'));
      try {
        await waitFor(() => sub.latest().join() === '10.0.1.1:9000', { timeoutMs: 3000, description: 'initial list' });
        // The client reads once on subscribe and once more 1 s later; after that it polls every cacheMillis (10 s).
        await waitFor(() => server.serviceCounters(NS, GROUP, 'weather').listRequests >= 2, 3000);
        const before = server.serviceCounters(NS, GROUP, 'weather');

        await registrar.registerInstance(
          'weather',
          clientInstance({ ip: '10.0.1.2', port: 9000, weight: 3, metadata: { 'mcp.transport': 'sse' } }),
          GROUP,
        );
        // cacheMillis is 10 s: arriving well inside it means the push, not a poll, carried the change.
        await waitFor(() => sub.latest().join() === '10.0.1.1:9000,10.0.1.2:9000', {
          timeoutMs: 3000,
          description: 'registered instance',
        });
        const added = sub.lists.at(-1)!.find((i) => i.ip === '10.0.1.2')!;
        expect(added).toMatchObject({ weight: 3, metadata: { 'mcp.transport': 'sse' }, healthy: true });

        server.registerInstance(NS, GROUP, 'weather', { ip: '10.0.1.3', port: 9000 });
        await waitFor(() => sub.latest().length === 3, { timeoutMs: 3000, description: 'control-API instance' });
        await waitFor(() => server.serviceCounters(NS, GROUP, 'weather').pushAcks >= before.pushAcks + 2, 2000);
        // No poll happened in between: the pushes carried both changes.
        expect(server.serviceCounters(NS, GROUP, 'weather').listRequests).toBe(before.listRequests);
      } finally {
        sub.stop();
      }
    });

    it('delivers the first instance of a service that had none when the subscription began', async () => {
      const sub = watch(adapter, ref('late'));
      try {
        await waitFor(() => server.subscribers(NS, GROUP, 'late').length === 1, 3000);
        server.registerInstance(NS, GROUP, 'late', { ip: '10.0.6.1', port: 9000 });
        await waitFor(() => sub.latest().join() === '10.0.6.1:9000', {
          timeoutMs: 3000,
          description: 'first instance',
        });
      } finally {
        sub.stop();
      }
    });

    it('drops removed instances from the subscriber list, whether the client or an admin removes them', async () => {
      server.registerInstance(NS, GROUP, 'maps', { ip: '10.0.2.1', port: 9000 });
      server.registerInstance(NS, GROUP, 'maps', { ip: '10.0.2.2', port: 9000 });
      await registrar.registerInstance('maps', clientInstance({ ip: '10.0.2.3', port: 9000 }), GROUP);
      const sub = watch(adapter, ref('maps'));
      try {
        await waitFor(() => sub.latest().length === 3, 3000);
        await registrar.deregisterInstance('maps', clientInstance({ ip: '10.0.2.3', port: 9000 }), GROUP);
        await waitFor(() => sub.latest().join() === '10.0.2.1:9000,10.0.2.2:9000', {
          timeoutMs: 3000,
          description: 'client deregistration',
        });
        expect(server.removeInstance(NS, GROUP, 'maps', { ip: '10.0.2.2', port: 9000 })).toBe(true);
        await waitFor(() => sub.latest().join() === '10.0.2.1:9000', { timeoutMs: 3000, description: 'admin removal' });
      } finally {
        sub.stop();
      }
    });

    it('hides an unhealthy instance from reads and subscribers, and shows it again when it recovers', async () => {
      server.registerInstance(NS, GROUP, 'search', { ip: '10.0.3.1', port: 9000 });
      server.registerInstance(NS, GROUP, 'search', { ip: '10.0.3.2', port: 9000 });
      const sub = watch(adapter, ref('search'));
      try {
        await waitFor(() => sub.latest().length === 2, 3000);
        server.setHealthy(NS, GROUP, 'search', { ip: '10.0.3.2', port: 9000 }, false);
        // A read goes to the server at once; the subscriber follows with the push.
        expect(addresses(await adapter.getHealthyInstances(ref('search')))).toEqual(['10.0.3.1:9000']);
        await waitFor(() => sub.latest().join() === '10.0.3.1:9000', {
          timeoutMs: 3000,
          description: 'unhealthy dropped',
        });
        server.setHealthy(NS, GROUP, 'search', { ip: '10.0.3.2', port: 9000 }, true);
        await waitFor(() => sub.latest().length === 2, { timeoutMs: 3000, description: 'recovered' });
      } finally {
        sub.stop();
      }
    });

    it('reads an empty list once the last instance goes (the client pushes it to no subscriber)', async () => {
      server.registerInstance(NS, GROUP, 'lonely', { ip: '10.0.4.1', port: 9000 });
      const sub = watch(adapter, ref('lonely'));
      try {
        await waitFor(() => sub.latest().length === 1, 3000);
        const acksBefore = server.serviceCounters(NS, GROUP, 'lonely').pushAcks;
        server.removeInstance(NS, GROUP, 'lonely', { ip: '10.0.4.1', port: 9000 });
        await expect(adapter.getHealthyInstances(ref('lonely'))).resolves.toEqual([]);
        // The empty push reaches the client and is acknowledged; what the subscriber does with it is the
        // client's business (it drops empty lists), so only the read is relied on.
        await waitFor(() => server.serviceCounters(NS, GROUP, 'lonely').pushAcks > acksBefore, 3000);
      } finally {
        sub.stop();
      }
    });

    it('keeps namespaces and groups apart, with one client (one UDP socket) per namespace', async () => {
      server.registerInstance(NS, GROUP, 'shared', { ip: '10.0.5.1', port: 9000 });
      server.registerInstance('tenant-b', GROUP, 'shared', { ip: '10.0.5.2', port: 9000 });
      server.registerInstance(NS, 'OTHER_GROUP', 'shared', { ip: '10.0.5.3', port: 9000 });

      expect(addresses(await adapter.getHealthyInstances(ref('shared')))).toEqual(['10.0.5.1:9000']);
      expect(addresses(await adapter.getHealthyInstances(ref('shared', 'tenant-b')))).toEqual(['10.0.5.2:9000']);
      expect(addresses(await adapter.getHealthyInstances(ref('shared', NS, 'OTHER_GROUP')))).toEqual(['10.0.5.3:9000']);

      const a = watch(adapter, ref('shared'));
      const b = watch(adapter, ref('shared', 'tenant-b'));
      try {
        await waitFor(() => a.latest().length === 1 && b.latest().length === 1, 3000);
        server.registerInstance('tenant-b', GROUP, 'shared', { ip: '10.0.5.4', port: 9000 });
        await waitFor(() => b.latest().length === 2, 3000);
        expect(a.latest()).toEqual(['10.0.5.1:9000']);
        const portA = server.subscribers(NS, GROUP, 'shared')[0]?.udpPort;
        const portB = server.subscribers('tenant-b', GROUP, 'shared')[0]?.udpPort;
        expect(portA).toBeGreaterThan(0);
        expect(portB).toBeGreaterThan(0);
        expect(portA).not.toBe(portB);
      } finally {
        a.stop();
        b.stop();
      }
    });

    it('takes the real client heartbeats without changing any host field, so beats cause no push', async () => {
      const pushesBefore = server.counters.pushesSent;
      // The first beat comes about 10 s after the client was built; the server then asks for one every 300 ms.
      await waitFor(() => server.counters.beats >= 2, {
        timeoutMs: 12_000,
        intervalMs: 100,
        description: 'two heartbeats',
      });
      expect(server.instances(NS, GROUP, 'beacon')).toEqual([
        expect.objectContaining({ ip: '10.1.0.1', healthy: true, metadata: { 'mcp.path': '/beacon' } }),
      ]);
      expect(server.counters.pushesSent).toBe(pushesBefore);
    });

    it('refuses lookups after close', async () => {
      const closing = new NacosNamingAdapter({ serverAddr: '127.0.0.1:1', namespace: NS });
      await closing.close();
      await expect(closing.getHealthyInstances(ref('catalog'))).rejects.toThrow(/closed/);
    });
  });

  describe('close()', () => {
    const server = new NacosTestServer();
    const handles = (): number =>
      process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'UDPWRAP').length;

    let addr: string;

    beforeAll(async () => {
      ({ addr } = await server.start());
    });
    afterAll(() => server.stop());

    it('leaves no timer and no UDP socket behind, not even the client heartbeat loop', async () => {
      const baseline = handles();
      const adapter = new NacosNamingAdapter({ serverAddr: addr, namespace: NS });
      server.registerInstance(NS, GROUP, 'closing', { ip: '10.4.0.1', port: 9000 });
      try {
        const sub = watch(adapter, ref('closing'));
        await waitFor(() => sub.latest().length === 1, 3000);
        expect(handles()).toBeGreaterThan(baseline);
      } finally {
        await adapter.close();
      }
      // Without stopping it, the client's heartbeat loop would hold a 10 s timer after close().
      await waitFor(() => handles() <= baseline, { timeoutMs: 2000, description: 'timers and sockets released' });
    });
  });

  describe('without UDP push (a server that only answers polls)', () => {
    const server = new NacosTestServer({ pushEnabled: false, cacheMillis: 1000 });
    let adapter: NacosNamingAdapter;

    beforeAll(async () => {
      const { addr } = await server.start();
      adapter = new NacosNamingAdapter({ serverAddr: addr, namespace: NS });
    });

    afterAll(async () => {
      await adapter.close();
      await server.stop();
    });

    it('still delivers a change, within about one cacheMillis, by the client poll', async () => {
      server.registerInstance(NS, GROUP, 'poll', { ip: '10.2.0.1', port: 9000 });
      const sub = watch(adapter, { ...ref('poll'), namespaceId: '' });
      try {
        await waitFor(() => sub.latest().length === 1, 3000);
        const listsBefore = server.serviceCounters(NS, GROUP, 'poll').listRequests;
        server.registerInstance(NS, GROUP, 'poll', { ip: '10.2.0.2', port: 9000 });
        await waitFor(() => sub.latest().length === 2, { timeoutMs: 3000, description: 'polled change' });
        expect(server.serviceCounters(NS, GROUP, 'poll').listRequests).toBeGreaterThan(listsBefore);
        expect(server.counters.pushesSent).toBe(0);
        expect(server.subscribers(NS, GROUP, 'poll')).toEqual([]);
      } finally {
        sub.stop();
      }
    });
  });

  describe('unsubscribe', () => {
    // Polls only: what a subscriber hears comes from the client's poll of the service, every cacheMillis.
    const server = new NacosTestServer({ pushEnabled: false, cacheMillis: 500 });
    let adapter: NacosNamingAdapter;

    beforeAll(async () => {
      const { addr } = await server.start();
      adapter = new NacosNamingAdapter({ serverAddr: addr, namespace: NS });
      await adapter.getHealthyInstances(ref('warm-up')); // the namespace's client exists before anything is counted
    });

    afterAll(async () => {
      await adapter.close();
      await server.stop();
    });

    it("stops the client's poll of a service once its last subscriber is gone", async () => {
      // The client's own polls, not the process's timers: other timers of the process come and go meanwhile.
      const reactor = (await clientOf(adapter))._hostReactor;
      const keys = Array.from({ length: 20 }, (_, i) => `${GROUP}@@short-lived-${i}@@DEFAULT`);
      const subs = keys.map((_, i) => {
        server.registerInstance(NS, GROUP, `short-lived-${i}`, { ip: '10.5.0.1', port: 9000 + i });
        return watch(adapter, ref(`short-lived-${i}`));
      });
      await waitFor(
        () => subs.every((sub) => sub.latest().length === 1) && keys.every((k) => reactor._futureMap.has(k)),
        {
          timeoutMs: 5000,
          description: 'every first list, and a poll of each service',
        },
      );
      const polls = keys.map((k) => reactor._futureMap.get(k)!.timer);
      for (const sub of subs) sub.stop();
      await waitFor(() => keys.every((k) => !reactor._futureMap.has(k)) && polls.every((t) => t._destroyed), {
        timeoutMs: 3000,
        description: "the client's polls of the services no one follows to stop",
      });
    });

    it('keeps polling for the subscribers still there, and again for one that subscribes anew', async () => {
      server.registerInstance(NS, GROUP, 'shared', { ip: '10.6.0.1', port: 9000 });
      const leaving = watch(adapter, ref('shared'));
      const staying = watch(adapter, ref('shared'));
      await waitFor(() => leaving.latest().length === 1 && staying.latest().length === 1, 3000);
      leaving.stop();
      server.registerInstance(NS, GROUP, 'shared', { ip: '10.6.0.2', port: 9000 });
      await waitFor(() => staying.latest().length === 2, { timeoutMs: 3000, description: 'the polled change' });
      staying.stop();

      const again = watch(adapter, ref('shared'));
      try {
        await waitFor(() => again.latest().length === 2, 3000);
        server.registerInstance(NS, GROUP, 'shared', { ip: '10.6.0.3', port: 9000 });
        await waitFor(() => again.latest().length === 3, { timeoutMs: 3000, description: 'the polled change' });
      } finally {
        again.stop();
      }
    });

    // The client schedules its poll once the first read of the service ends: a subscriber that left before then left
    // a poll (a timer, and a list request every cacheMillis) that nothing stopped any more.
    it("stops the client's poll of a service whose last subscriber left during its first read", async () => {
      server.registerInstance(NS, GROUP, 'left-early', { ip: '10.8.0.1', port: 9000 });
      const client = await clientOf(adapter);
      const reactor = client._hostReactor;
      const key = `${GROUP}@@left-early@@DEFAULT`;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const proxy = client._serverProxy;
      const queryList = proxy.queryList.bind(proxy);
      const firstRead = jest.spyOn(proxy, 'queryList').mockImplementationOnce(async (...args) => {
        await gate;
        return queryList(...args);
      });
      try {
        const sub = watch(adapter, ref('left-early'));
        await waitFor(() => firstRead.mock.calls.length === 1, 3000);
        sub.stop();
        await new Promise(setImmediate); // the unsubscribe has run
        release();
        await waitFor(() => !reactor._updatingSet.has(key), { timeoutMs: 3000, description: 'the first read to end' });
        await waitFor(() => !reactor._futureMap.has(key), {
          timeoutMs: 3000,
          description: "the client's poll of the service no one follows to stop",
        });
        expect(reactor._serviceInfoMap.has(key)).toBe(false);
      } finally {
        firstRead.mockRestore();
      }
    });
  });

  describe('unsubscribe, with UDP push', () => {
    const server = new NacosTestServer({ pushDelayMs: 20, cacheMillis: 500 });
    let adapter: NacosNamingAdapter;

    beforeAll(async () => {
      const { addr } = await server.start();
      adapter = new NacosNamingAdapter({ serverAddr: addr, namespace: NS });
    });

    afterAll(async () => {
      await adapter.close();
      await server.stop();
    });

    it('polls a service again for a new subscriber after a push arrived while no one followed it', async () => {
      server.registerInstance(NS, GROUP, 'late-push', { ip: '10.7.0.1', port: 9000 });
      const first = watch(adapter, ref('late-push'));
      await waitFor(() => first.latest().length === 1, 3000);
      first.stop();
      // The server still pushes to the client for a while: the list it caches is followed by no poll.
      const acks = server.serviceCounters(NS, GROUP, 'late-push').pushAcks;
      server.registerInstance(NS, GROUP, 'late-push', { ip: '10.7.0.2', port: 9000 });
      await waitFor(() => server.serviceCounters(NS, GROUP, 'late-push').pushAcks > acks, 3000);

      const lists = server.serviceCounters(NS, GROUP, 'late-push').listRequests;
      const again = watch(adapter, ref('late-push'));
      try {
        await waitFor(() => again.latest().length === 2, 3000);
        await waitFor(() => server.serviceCounters(NS, GROUP, 'late-push').listRequests > lists + 1, {
          timeoutMs: 3000,
          description: 'the client to poll the service again',
        });
      } finally {
        again.stop();
      }
    });
  });

  describe('with auth enabled', () => {
    const credentials = { username: 'nacos-reader', password: 'Sup3r$ecret/pw' };
    const server = new NacosTestServer({ auth: credentials });
    let addr: string;

    beforeAll(async () => {
      ({ addr } = await server.start());
      server.registerInstance(NS, GROUP, 'secured', { ip: '10.3.0.1', port: 9000 });
    });

    afterAll(() => server.stop());

    it('reads and subscribes with the credentials, which the client sends on every request', async () => {
      const adapter = new NacosNamingAdapter({ serverAddr: addr, namespace: NS, ...credentials });
      try {
        expect(addresses(await adapter.getHealthyInstances(ref('secured')))).toEqual(['10.3.0.1:9000']);
        const sub = watch(adapter, ref('secured'));
        await waitFor(() => sub.latest().length === 1, 3000);
        sub.stop();
      } finally {
        await adapter.close();
      }
      const lists = server.requests.filter((r) => r.path === '/nacos/v1/ns/instance/list');
      expect(lists.length).toBeGreaterThanOrEqual(2);
      for (const r of lists) expect(r.params).toMatchObject(credentials);
      expect(server.counters.logins).toBe(0);
    });

    it('fails a read with wrong credentials and never logs the password', async () => {
      const lines: string[] = [];
      const logger = {
        debug: (m: string) => lines.push(m),
        warn: (m: string) => lines.push(m),
        error: (m: string) => lines.push(m),
      };
      const adapter = new NacosNamingAdapter({
        serverAddr: addr,
        namespace: NS,
        username: 'nacos-reader',
        password: 'wrong-Pa55word',
        logger,
      });
      try {
        await expect(adapter.getHealthyInstances(ref('secured'))).rejects.toThrow(/failed to req API/);
        const sub = watch(adapter, ref('secured'));
        await waitFor(() => lines.some((l) => l.includes('failed to update serviceName')), 3000);
        sub.stop();
        expect(sub.lists).toEqual([]);
      } finally {
        await adapter.close();
      }
      expect(server.counters.rejectedRequests).toBeGreaterThan(0);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toContain('wrong-Pa55word');
    });

    it('issues tokens on the login endpoint that other clients use', async () => {
      const bad = await fetch(`http://${addr}/nacos/v1/auth/users/login?username=nacos-reader&password=nope`, {
        method: 'POST',
      });
      expect(bad.status).toBe(403);
      const login = await fetch(`http://${addr}/nacos/v1/auth/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(credentials).toString(),
      });
      const { accessToken } = (await login.json()) as { accessToken: string };
      const list = await fetch(
        `http://${addr}/nacos/v1/ns/instance/list?serviceName=${GROUP}@@secured&namespaceId=${NS}&accessToken=${accessToken}`,
      );
      expect(list.status).toBe(200);
      expect(((await list.json()) as { hosts: unknown[] }).hosts).toHaveLength(1);
      const anonymous = await fetch(
        `http://${addr}/nacos/v1/ns/instance/list?serviceName=${GROUP}@@secured&namespaceId=${NS}`,
      );
      expect(anonymous.status).toBe(403);
    });
  });
});
