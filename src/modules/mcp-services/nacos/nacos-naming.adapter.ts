import type { EventEmitter } from 'node:events';
import type { OnApplicationShutdown } from '@nestjs/common';
import { NacosNamingClient } from 'nacos';
import { createNacosClientLogger, type NacosClientLogger, type NacosLogSink } from './nacos-client-logger';

/** One instance of a Nacos service, as the gateway uses it. */
export interface NacosInstance {
  /** `ip#port#cluster#group@@service` on Nacos 2.x. */
  instanceId: string;
  ip: string;
  port: number;
  /** Share of traffic; 0 takes the instance out of rotation without deregistering it. */
  weight: number;
  healthy: boolean;
  enabled: boolean;
  metadata: Record<string, string>;
  clusterName: string;
}

/** Names a Nacos service: the same service name in another group or namespace is another service. */
export interface NacosServiceRef {
  serviceName: string;
  groupName: string;
  /** Empty means the adapter's default namespace. */
  namespaceId: string;
  /**
   * Clusters to read (default `['DEFAULT']`). The client subscribes to `DEFAULT` when given none, so
   * reads use the same default: a subscription and a direct read always see the same instances.
   */
  clusters?: string[];
}

/** Service discovery as the MCP sync needs it; the only way into Nacos. */
export interface NacosNamingPort {
  /** healthy and enabled instances only, fetched from the server now */
  getHealthyInstances(ref: NacosServiceRef): Promise<NacosInstance[]>;
  /** listener receives the healthy+enabled instances on every change; returns an unsubscribe function */
  subscribe(ref: NacosServiceRef, listener: (instances: NacosInstance[]) => void): () => void;
  close(): Promise<void>;
}

/** Injection token of {@link NacosNamingPort}. */
export const NACOS_NAMING = Symbol('NACOS_NAMING');

/** Connection settings of {@link NacosNamingAdapter} (`config.nacos`). */
export interface NacosNamingSettings {
  /** `host:port[,host:port]`. */
  serverAddr: string;
  /** Namespace of a {@link NacosServiceRef} whose `namespaceId` is empty. */
  namespace: string;
  /** Sent (with the password) as query parameters on every request; empty means no auth. */
  username?: string;
  /** Never logged: the client's log lines go through a redacting logger. */
  password?: string;
  /** Receives the client's log lines, redacted; omitted, they are dropped. */
  logger?: NacosLogSink;
}

/** A host as the client hands it over (Nacos 2.x fields; 1.x servers also send `valid`). */
interface RawHost {
  instanceId?: string;
  ip: string;
  port: number | string;
  weight?: number | string;
  healthy?: boolean;
  valid?: boolean;
  enabled?: boolean;
  metadata?: Record<string, unknown>;
  clusterName?: string;
  serviceName?: string;
}

interface SubscribeInfo {
  serviceName: string;
  groupName: string;
  clusters: string;
}

/**
 * What the adapter uses of the `nacos` 2.6.3 naming client, including these internals:
 * - `_serverProxy.queryList`: the public reads either serve the subscription cache or, when the
 *   server answers an empty list, return the previous cached list (`ServiceInfo.isValid` rejects
 *   empty lists), so "no instance left" could never be seen; this call reads the server as it is.
 * - `_beatReactor`: its loop sleeps 10 s on an unclearable timer even after `close()`; the gateway
 *   registers no instance, so the loop is stopped at once.
 * - `_hostReactor` (and its push receiver): report errors as events that would otherwise go to
 *   `console.error` with the request's query string, password included; and its per-service poll, which its
 *   `unSubscribe` never stops (see {@link forgetUnfollowed}).
 */
interface NamingClient extends EventEmitter {
  ready(): Promise<void>;
  close(): Promise<void>;
  subscribe(info: SubscribeInfo, listener: (hosts: RawHost[]) => void): void;
  unSubscribe(info: SubscribeInfo, listener: (hosts: RawHost[]) => void): void;
  _serverProxy: {
    queryList(serviceName: string, clusters: string, udpPort: number, healthyOnly: boolean): Promise<string>;
  };
  _beatReactor: { _isClosed: boolean; _clientBeatInterval: number };
  _hostReactor: HostReactor;
}

/** The client's subscription half: a poll timer and a cached list per service key (see {@link forgetUnfollowed}). */
interface HostReactor extends EventEmitter {
  _pushReceiver?: EventEmitter;
  _getKey(param: { serviceName: string; clusters: string }): string;
  _futureMap: Map<string, { timer: NodeJS.Timeout }>;
  _serviceInfoMap: Map<string, unknown>;
  /** Keys whose first read is under way (their poll starts once it is done). */
  _updatingSet: Set<string>;
}

const DEFAULT_CLUSTERS = ['DEFAULT'];

/**
 * {@link NacosNamingPort} over the npm `nacos` client (v1 HTTP API + UDP push). One client per
 * namespace, created on first use and kept until {@link close}. Subscribers hear changes by UDP push
 * (about 0.5 s on a stock server) or, when pushes are lost, by the client's poll every `cacheMillis`
 * (10 s on a stock server). The client never hands an empty list to subscribers: when the last
 * instance goes, only {@link getHealthyInstances} (the scheduled repair) sees it.
 */
export class NacosNamingAdapter implements NacosNamingPort, OnApplicationShutdown {
  private readonly clients = new Map<string, Promise<NamingClient>>();
  private readonly clientLogger: NacosClientLogger;
  private closed = false;

  constructor(private readonly settings: NacosNamingSettings) {
    this.clientLogger = createNacosClientLogger(settings.logger, settings.password ? [settings.password] : []);
  }

  async getHealthyInstances(ref: NacosServiceRef): Promise<NacosInstance[]> {
    const client = await this.clientFor(ref);
    const body = await client._serverProxy.queryList(groupedNameOf(ref), clustersOf(ref), 0, false);
    if (!body)
      throw new Error(
        `Nacos answered an empty body for ${describeRef(ref)}; check that NACOS_SERVER_ADDR points at a Nacos server.`,
      );
    const parsed = JSON.parse(body) as { hosts?: RawHost[] };
    return healthyInstancesOf(parsed.hosts);
  }

  subscribe(ref: NacosServiceRef, listener: (instances: NacosInstance[]) => void): () => void {
    const info: SubscribeInfo = { serviceName: ref.serviceName, groupName: ref.groupName, clusters: clustersOf(ref) };
    let active = true;
    const onHosts = (hosts: RawHost[]): void => {
      if (!active) return;
      try {
        listener(healthyInstancesOf(hosts));
      } catch (err) {
        // The client calls listeners inside its push handler: a throw would lose the push-ack.
        this.clientLogger.error(`Nacos subscriber of ${describeRef(ref)} failed:`, err);
      }
    };
    const subscribed = this.clientFor(ref).then((client) => {
      if (active) {
        forgetUnpolled(client, info);
        client.subscribe(info, onHosts);
      }
      return client;
    });
    subscribed.catch((err: unknown) =>
      this.clientLogger.warn(`Nacos subscription to ${describeRef(ref)} failed:`, err),
    );
    return () => {
      if (!active) return;
      active = false;
      void subscribed.then(
        (client) => {
          client.unSubscribe(info, onHosts);
          forgetUnfollowed(client, info);
        },
        () => undefined,
      );
    };
  }

  /** Stops every client: its poll timers, its UDP socket and its listeners. Later calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    const pending = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(
      pending.map((p) =>
        p.then(
          (client) => client.close(),
          () => undefined,
        ),
      ),
    );
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private clientFor(ref: NacosServiceRef): Promise<NamingClient> {
    if (this.closed)
      return Promise.reject(new Error('The Nacos naming adapter is closed; no further lookups are possible.'));
    const namespace = ref.namespaceId || this.settings.namespace || 'public';
    let pending = this.clients.get(namespace);
    if (!pending) {
      pending = this.createClient(namespace);
      this.clients.set(namespace, pending);
      const created = pending;
      created.catch(() => {
        if (this.clients.get(namespace) === created) this.clients.delete(namespace);
      });
    }
    return pending;
  }

  private async createClient(namespace: string): Promise<NamingClient> {
    const { serverAddr, username, password } = this.settings;
    const withAuth = username && password ? { username, password } : {};
    const client = new NacosNamingClient({
      serverList: serverAddr,
      namespace,
      logger: this.clientLogger as unknown as typeof console,
      ...withAuth,
    }) as unknown as NamingClient;
    try {
      // Synchronously, before the beat loop reaches its first sleep.
      stopBeatLoop(client);
      const report = (err: unknown): void => this.clientLogger.warn(`Nacos client (namespace ${namespace}):`, err);
      client.on('error', report);
      client._hostReactor.on('error', report);
      client._hostReactor._pushReceiver?.on('error', report);
      await client.ready();
      return client;
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
  }
}

/** The client's key of a subscription (`group@@service@@clusters`), as its own subscribe computes it. */
function reactorKeyOf(client: NamingClient, info: SubscribeInfo): string {
  return client._hostReactor._getKey({
    serviceName: `${info.groupName}@@${info.serviceName}`,
    clusters: info.clusters,
  });
}

/**
 * The client's `unSubscribe` only removes the listener: its poll of the service (a timer, and a list request every
 * cacheMillis) and its cached list stayed for as long as the client, for every service ever followed, so a gateway
 * that followed services for weeks polled all of them. With no listener left they go; a later subscribe starts
 * them again.
 */
function forgetUnfollowed(client: NamingClient, info: SubscribeInfo): void {
  const reactor = client._hostReactor;
  const key = reactorKeyOf(client, info);
  if (reactor.listenerCount(`${key}_changed`) > 0) return;
  clearTimeout(reactor._futureMap.get(key)?.timer);
  reactor._futureMap.delete(key);
  reactor._serviceInfoMap.delete(key);
  // Its first read still under way: the client starts the poll once that read ends, so it is looked at again then.
  if (reactor._updatingSet.has(key)) setTimeout(() => forgetUnfollowed(client, info), FIRST_READ_RECHECK_MS).unref();
}

/** How often a service left during its first read is looked at again, until that read has ended. */
const FIRST_READ_RECHECK_MS = 100;

/**
 * A list the client cached without polling the service (a poll or a push that landed after {@link forgetUnfollowed})
 * would make its subscribe hand it out and never poll again: dropped first, so the subscribe reads and polls anew.
 */
function forgetUnpolled(client: NamingClient, info: SubscribeInfo): void {
  const reactor = client._hostReactor;
  const key = reactorKeyOf(client, info);
  if (!reactor._futureMap.has(key) && !reactor._updatingSet.has(key)) reactor._serviceInfoMap.delete(key);
}

function stopBeatLoop(client: NamingClient): void {
  const beat = client._beatReactor;
  if (
    !beat ||
    typeof beat._clientBeatInterval !== 'number' ||
    typeof client._serverProxy?.queryList !== 'function' ||
    !client._hostReactor ||
    typeof client._hostReactor._getKey !== 'function' ||
    !(client._hostReactor._futureMap instanceof Map) ||
    !(client._hostReactor._serviceInfoMap instanceof Map) ||
    !(client._hostReactor._updatingSet instanceof Set)
  ) {
    throw new Error(
      'The installed nacos client is not the 2.6.x line this adapter was written for; update nacos-naming.adapter.ts.',
    );
  }
  beat._isClosed = true;
  beat._clientBeatInterval = 0;
}

function healthyInstancesOf(hosts: RawHost[] | undefined): NacosInstance[] {
  return (Array.isArray(hosts) ? hosts : [])
    .map(toInstance)
    .filter((i) => i.healthy && i.enabled)
    .sort((a, b) => a.instanceId.localeCompare(b.instanceId));
}

function toInstance(host: RawHost): NacosInstance {
  const clusterName = host.clusterName || 'DEFAULT';
  const metadata = Object.fromEntries(Object.entries(host.metadata ?? {}).map(([k, v]) => [k, String(v)]));
  return {
    instanceId: host.instanceId || `${host.ip}#${host.port}#${clusterName}#${host.serviceName ?? ''}`,
    ip: host.ip,
    port: Number(host.port),
    weight: Number(host.weight ?? 1),
    healthy: host.healthy ?? host.valid ?? false,
    enabled: host.enabled ?? true,
    metadata,
    clusterName,
  };
}

function groupedNameOf(ref: NacosServiceRef): string {
  return `${ref.groupName}@@${ref.serviceName}`;
}

function clustersOf(ref: NacosServiceRef): string {
  return (ref.clusters?.length ? ref.clusters : DEFAULT_CLUSTERS).join(',');
}

function describeRef(ref: NacosServiceRef): string {
  return `${groupedNameOf(ref)} in namespace ${ref.namespaceId || '(default)'}`;
}
