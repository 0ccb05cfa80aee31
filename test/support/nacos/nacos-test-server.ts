import http from 'node:http';
import { closeHttpServer, listenOnLoopback } from '@test/support/loopback-http';
import { NacosTestAuth, type NacosTestCredentials } from './nacos-test-auth';
import {
  DEFAULT_CLUSTER,
  DEFAULT_GROUP,
  NacosNamingState,
  type StoredInstance,
  type TestInstanceKey,
  type TestInstanceSpec,
  groupedName,
} from './nacos-naming-state';
import { NacosUdpPusher, type PushCounters, type PushSubscriber } from './nacos-udp-pusher';
import { HttpError, bool, endpointOf, ns, parseMetadata, readBody, send, serviceNameOf } from './nacos-http-params';

export type { TestInstanceKey, TestInstanceSpec, StoredInstance, PushSubscriber, NacosTestCredentials };

/** Behaviour switches of {@link NacosTestServer}; every default is what a stock Nacos 2.x server does. */
export interface NacosTestServerOptions {
  /** `cacheMillis` in every list answer: the client polls a subscribed service this often (default 10000). */
  cacheMillis?: number;
  /** Take UDP push subscriptions and push changes (default true). */
  pushEnabled?: boolean;
  /** Delay between a change and its push; changes within it share one push (default 500, `pushTaskDelay`). */
  pushDelayMs?: number;
  /** A push subscriber that stops polling is dropped after this long (default 180000). */
  subscriberTtlMs?: number;
  /** When set, every naming call needs this identity and the login endpoint issues tokens. */
  auth?: NacosTestCredentials;
  /** `clientBeatInterval` answered to heartbeats (default 5000). */
  clientBeatIntervalMs?: number;
  /** A heartbeat-driven instance becomes unhealthy after this silence (default 15000) ... */
  heartbeatTimeoutMs?: number;
  /** ... and is deleted after this one (default 30000). */
  ipDeleteTimeoutMs?: number;
  /**
   * Protect threshold of every service. Unset (the default) is a service created by registration,
   * which has no service metadata and so no protection. With 0, a service whose instances are all
   * unhealthy is answered with all of them marked healthy, as a real server does.
   */
  protectThreshold?: number;
}

/** Server-wide counters, for tests that assert which path (push or poll) carried a change. */
export interface NacosTestCounters extends PushCounters {
  listRequests: number;
  registrations: number;
  deregistrations: number;
  beats: number;
  logins: number;
  rejectedRequests: number;
}

/** One HTTP request as the server received it (all parameters, query and form body merged). */
export interface RecordedRequest {
  method: string;
  path: string;
  params: Record<string, string>;
}

const MAX_RECORDED_REQUESTS = 2000;

/**
 * In-process Nacos naming server speaking the v1 open API (HTTP, every parameter in the query string)
 * and v1 UDP push, as the npm `nacos` client 2.6.3 uses them. Tests drive it through the control
 * methods (`registerInstance`, `setHealthy`, `removeInstance`, ...); instances registered this way
 * never expire, while those the client registers over HTTP live by its heartbeats like on a real server.
 *
 * What it does as a real server does, and tests must not fight:
 * - an empty host list is pushed (and acknowledged), but the client never hands it to subscribers;
 * - only enabled instances are listed (disabled ones vanish from the client's view);
 * - hosts carry no field that changes on a heartbeat; `lastRefTime` changes only with the data
 *   (a real 2.x server stamps every answer with the current time; the client only compares it);
 * - pushes go to the HTTP peer address, not the reported `clientIP` (see {@link NacosUdpPusher}).
 */
export class NacosTestServer {
  private readonly options: Required<Omit<NacosTestServerOptions, 'auth' | 'protectThreshold'>> &
    Pick<NacosTestServerOptions, 'auth' | 'protectThreshold'>;
  private readonly state: NacosNamingState;
  private readonly pusher: NacosUdpPusher;
  private readonly auth?: NacosTestAuth;
  private readonly pendingPushes = new Map<string, NodeJS.Timeout>();
  private readonly listsPerService = new Map<string, number>();
  private readonly recorded: RecordedRequest[] = [];
  private readonly count = {
    listRequests: 0,
    registrations: 0,
    deregistrations: 0,
    beats: 0,
    logins: 0,
    rejectedRequests: 0,
  };
  private server?: http.Server;
  private expiryTimer?: NodeJS.Timeout;

  constructor(options: NacosTestServerOptions = {}) {
    this.options = {
      cacheMillis: 10_000,
      pushEnabled: true,
      pushDelayMs: 500,
      subscriberTtlMs: 180_000,
      clientBeatIntervalMs: 5_000,
      heartbeatTimeoutMs: 15_000,
      ipDeleteTimeoutMs: 30_000,
      ...options,
    };
    this.state = new NacosNamingState(
      {
        heartBeatInterval: this.options.clientBeatIntervalMs,
        heartBeatTimeout: this.options.heartbeatTimeoutMs,
        ipDeleteTimeout: this.options.ipDeleteTimeoutMs,
      },
      (ns, name) => this.schedulePush(ns, name),
      this.options.protectThreshold,
    );
    this.pusher = new NacosUdpPusher(this.options.subscriberTtlMs);
    if (this.options.auth) this.auth = new NacosTestAuth(this.options.auth);
  }

  /** Listens on 127.0.0.1 with free ports; `addr` is what the client's `serverList` takes. */
  async start(): Promise<{ addr: string }> {
    await this.pusher.start();
    const server = http.createServer((req, res) => void this.handle(req, res));
    const port = await listenOnLoopback(server);
    this.server = server;
    const sweepMs = Math.max(50, Math.min(5_000, Math.floor(this.options.heartbeatTimeoutMs / 3)));
    this.expiryTimer = setInterval(() => this.state.expireSilentInstances(), sweepMs);
    return { addr: `127.0.0.1:${port}` };
  }

  /** Closes the HTTP server (and its kept-alive connections), the UDP socket and every timer. */
  async stop(): Promise<void> {
    clearInterval(this.expiryTimer);
    for (const timer of this.pendingPushes.values()) clearTimeout(timer);
    this.pendingPushes.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await closeHttpServer(server);
    await this.pusher.stop();
  }

  // ---- control API for tests -------------------------------------------------------------

  /** Registers (or replaces) an instance, as an admin would; it never expires. */
  registerInstance(namespaceId: string, group: string, service: string, spec: TestInstanceSpec): StoredInstance {
    return this.state.upsert(ns(namespaceId), groupedName(group, service), spec, false);
  }

  /** Flips an instance's health; returns false when there is no such instance. */
  setHealthy(namespaceId: string, group: string, service: string, key: TestInstanceKey, healthy: boolean): boolean {
    return this.state.update(ns(namespaceId), groupedName(group, service), key, { healthy });
  }

  /** Changes other fields of an instance (enabled, weight, metadata); returns false when there is none. */
  updateInstance(
    namespaceId: string,
    group: string,
    service: string,
    key: TestInstanceKey,
    patch: { enabled?: boolean; weight?: number; metadata?: Record<string, string> },
  ): boolean {
    return this.state.update(ns(namespaceId), groupedName(group, service), key, patch);
  }

  /** Deletes an instance; returns false when there was none. */
  removeInstance(namespaceId: string, group: string, service: string, key: TestInstanceKey): boolean {
    return this.state.remove(ns(namespaceId), groupedName(group, service), key);
  }

  /**
   * Pushes a service's instances to its subscribers now, as a push of its own, instead of after pushDelayMs: two
   * changes each followed by this reach a client as two pushes at the same moment.
   */
  pushNow(namespaceId: string, group: string, service: string): void {
    const key = `${ns(namespaceId)}|${groupedName(group, service)}`;
    clearTimeout(this.pendingPushes.get(key));
    this.pendingPushes.delete(key);
    this.pushToSubscribers(ns(namespaceId), groupedName(group, service));
  }

  /** Every stored instance of a service, healthy or not, enabled or not. */
  instances(namespaceId: string, group: string, service: string): StoredInstance[] {
    return this.state.instances(ns(namespaceId), groupedName(group, service));
  }

  /** Clients that currently receive pushes for a service. */
  subscribers(namespaceId: string, group: string, service: string): PushSubscriber[] {
    return this.pusher.subscribersOf(ns(namespaceId), groupedName(group, service));
  }

  /** List calls and pushes of one service. */
  serviceCounters(namespaceId: string, group: string, service: string): PushCounters & { listRequests: number } {
    const key = `${ns(namespaceId)}|${groupedName(group, service)}`;
    return { ...this.pusher.countersOf(key), listRequests: this.listsPerService.get(key) ?? 0 };
  }

  /** A snapshot of the server-wide counters. */
  get counters(): NacosTestCounters {
    return { ...this.count, ...this.pusher.totals };
  }

  /** The requests received so far (the newest 2000), parameters included. */
  get requests(): readonly RecordedRequest[] {
    return [...this.recorded];
  }

  // ---- HTTP -----------------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://nacos.test');
      const params = new URLSearchParams(url.search);
      const body = await readBody(req);
      if (body && (req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) {
        for (const [k, v] of new URLSearchParams(body)) if (!params.has(k)) params.set(k, v);
      }
      const method = req.method ?? 'GET';
      this.record({ method, path: url.pathname, params: Object.fromEntries(params) });
      const answer = this.route(method, url.pathname, params, req);
      send(res, 200, answer);
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 500;
      send(res, status, err instanceof Error ? err.message : String(err));
    }
  }

  private route(method: string, path: string, params: URLSearchParams, req: http.IncomingMessage): unknown {
    if (method === 'POST' && (path === '/nacos/v1/auth/users/login' || path === '/nacos/v1/auth/login')) {
      const token = this.auth?.login(params);
      if (this.auth && !token) throw this.reject('unknown user!');
      this.count.logins++;
      return token ?? { accessToken: '', tokenTtl: 18_000, globalAdmin: true };
    }
    if (path.startsWith('/nacos/v1/ns/') && this.auth && !this.auth.allows(params, req.headers)) {
      throw this.reject('user not found!');
    }
    switch (`${method} ${path}`) {
      case 'POST /nacos/v1/ns/instance':
        return this.registerOverHttp(params);
      case 'DELETE /nacos/v1/ns/instance':
        return this.deregisterOverHttp(params);
      case 'PUT /nacos/v1/ns/instance/beat':
        return this.beatOverHttp(params);
      case 'GET /nacos/v1/ns/instance/list':
        return this.listOverHttp(params, req.socket.remoteAddress ?? '127.0.0.1');
      case 'GET /nacos/v1/ns/operator/metrics':
        return {
          status: 'UP',
          serviceCount: 0,
          instanceCount: 0,
          subscribeCount: 0,
          responsibleInstanceCount: 0,
          cpu: 0,
          load: 0,
          mem: 0,
        };
      case 'GET /nacos/v1/ns/service/list':
        return this.serviceListOverHttp(params);
      default:
        throw new HttpError(404, `no such API: ${method} ${path}`);
    }
  }

  private registerOverHttp(params: URLSearchParams): string {
    const name = serviceNameOf(params);
    const weight = Number(params.get('weight') ?? '1');
    if (!Number.isFinite(weight) || weight < 0 || weight > 10_000) {
      throw new HttpError(400, 'caused: instance format invalid: The weights range from 0.0 to 10000.0');
    }
    const ephemeral = bool(params.get('ephemeral'), true);
    this.state.upsert(
      ns(params.get('namespaceId')),
      name,
      {
        ...endpointOf(params),
        weight,
        healthy: bool(params.get('healthy'), true),
        enabled: bool(params.get('enabled') ?? params.get('enable'), true),
        ephemeral,
        metadata: parseMetadata(params.get('metadata')),
      },
      ephemeral,
    );
    this.count.registrations++;
    return 'ok';
  }

  private deregisterOverHttp(params: URLSearchParams): string {
    this.state.remove(ns(params.get('namespaceId')), serviceNameOf(params), endpointOf(params));
    this.count.deregistrations++;
    return 'ok';
  }

  private beatOverHttp(params: URLSearchParams): unknown {
    this.count.beats++;
    const name = serviceNameOf(params);
    const namespaceId = ns(params.get('namespaceId'));
    const beatJson = params.get('beat');
    const beat = beatJson
      ? (JSON.parse(beatJson) as {
          ip: string;
          port: number;
          cluster?: string;
          weight?: number;
          metadata?: Record<string, string>;
        })
      : undefined;
    const key = beat
      ? { ip: beat.ip, port: Number(beat.port), clusterName: beat.cluster || DEFAULT_CLUSTER }
      : endpointOf(params);
    if (!this.state.beat(namespaceId, name, key)) {
      // A real server re-registers an instance it lost when the beat carries the instance's data.
      if (!beat) return { code: 20404, clientBeatInterval: this.options.clientBeatIntervalMs, lightBeatEnabled: true };
      this.state.upsert(namespaceId, name, { ...key, weight: beat.weight, metadata: beat.metadata }, true);
    }
    return { clientBeatInterval: this.options.clientBeatIntervalMs, code: 10200, lightBeatEnabled: true };
  }

  private listOverHttp(params: URLSearchParams, peerAddress: string): unknown {
    const name = serviceNameOf(params);
    const namespaceId = ns(params.get('namespaceId'));
    const clusters = params.get('clusters') ?? '';
    const udpPort = Number(params.get('udpPort') ?? '0');
    const key = `${namespaceId}|${name}`;
    this.count.listRequests++;
    this.listsPerService.set(key, (this.listsPerService.get(key) ?? 0) + 1);
    if (this.options.pushEnabled && udpPort > 0) {
      // Subscribes even to a service that does not exist yet, so its first instance gets pushed.
      this.pusher.addOrRefresh({
        namespaceId,
        groupedName: name,
        clientIp: params.get('clientIP') ?? peerAddress,
        udpPort,
        clusters,
        address: peerAddress,
      });
    }
    return this.state.view(
      namespaceId,
      name,
      clusters,
      bool(params.get('healthyOnly'), false),
      this.options.cacheMillis,
    );
  }

  private serviceListOverHttp(params: URLSearchParams): unknown {
    const names = this.state.serviceNames(ns(params.get('namespaceId')), params.get('groupName') || DEFAULT_GROUP);
    const pageNo = Math.max(1, Number(params.get('pageNo') ?? '1'));
    const pageSize = Math.max(1, Number(params.get('pageSize') ?? '10'));
    return { count: names.length, doms: names.slice((pageNo - 1) * pageSize, pageNo * pageSize) };
  }

  // ---- push -----------------------------------------------------------------------------

  private schedulePush(namespaceId: string, name: string): void {
    if (!this.options.pushEnabled || !this.server) return;
    const key = `${namespaceId}|${name}`;
    if (this.pendingPushes.has(key)) return;
    this.pendingPushes.set(
      key,
      setTimeout(() => {
        this.pendingPushes.delete(key);
        this.pushToSubscribers(namespaceId, name);
      }, this.options.pushDelayMs),
    );
  }

  private pushToSubscribers(namespaceId: string, name: string): void {
    for (const sub of this.pusher.subscribersOf(namespaceId, name)) {
      const view = this.state.view(namespaceId, name, sub.clusters, false, this.options.cacheMillis);
      this.pusher.push(sub, JSON.stringify(view));
    }
  }

  private reject(message: string): HttpError {
    this.count.rejectedRequests++;
    return new HttpError(403, message);
  }

  private record(request: RecordedRequest): void {
    this.recorded.push(request);
    if (this.recorded.length > MAX_RECORDED_REQUESTS) this.recorded.shift();
  }
}
