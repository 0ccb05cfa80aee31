import { createHash } from 'node:crypto';

/** Default namespace: the v1 API treats an empty `namespaceId` as `public`. */
export const PUBLIC_NAMESPACE = 'public';
/** Group used when a service name has no `group@@` prefix and no `groupName` parameter. */
export const DEFAULT_GROUP = 'DEFAULT_GROUP';
/** Cluster of an instance registered without `clusterName`. */
export const DEFAULT_CLUSTER = 'DEFAULT';

/** What a test (or the HTTP API) gives to register an instance. */
export interface TestInstanceSpec {
  ip: string;
  port: number;
  weight?: number;
  healthy?: boolean;
  enabled?: boolean;
  metadata?: Record<string, string>;
  clusterName?: string;
  ephemeral?: boolean;
}

/** Identifies one instance of a service: Nacos keys instances by ip, port and cluster. */
export interface TestInstanceKey {
  ip: string;
  port: number;
  clusterName?: string;
}

/** A host exactly as `GET /nacos/v1/ns/instance/list` and UDP pushes carry it (Nacos 2.x field set). */
export interface NacosHostJson {
  instanceId: string;
  ip: string;
  port: number;
  weight: number;
  healthy: boolean;
  enabled: boolean;
  ephemeral: boolean;
  clusterName: string;
  serviceName: string;
  metadata: Record<string, string>;
  instanceHeartBeatInterval: number;
  instanceHeartBeatTimeOut: number;
  ipDeleteTimeout: number;
  instanceIdGenerator: string;
}

/** The body of `instance/list` and the `data` string of a `dom` push. */
export interface NacosServiceInfoJson {
  name: string;
  groupName: string;
  clusters: string;
  cacheMillis: number;
  hosts: NacosHostJson[];
  lastRefTime: number;
  checksum: string;
  allIPs: boolean;
  reachProtectionThreshold: boolean;
  valid: boolean;
}

/** A stored instance: the wire fields plus the heartbeat bookkeeping that never goes on the wire. */
export interface StoredInstance extends NacosHostJson {
  /** True when the instance lives by client heartbeats (registered over HTTP as ephemeral, or by a beat). */
  beatDriven: boolean;
  lastBeatAt: number;
}

interface ServiceEntry {
  namespaceId: string;
  groupedName: string;
  instances: Map<string, StoredInstance>;
  lastRefTime: number;
  checksum: string;
}

/** Heartbeat timings a real server uses by default (milliseconds). */
export interface HeartbeatTimings {
  heartBeatInterval: number;
  heartBeatTimeout: number;
  ipDeleteTimeout: number;
}

/** `group@@service`, as every v1 call names a service. */
export function groupedName(group: string, service: string): string {
  return `${group}@@${service}`;
}

/** Splits `group@@service`; a bare name belongs to `fallbackGroup`. */
export function splitGroupedName(name: string, fallbackGroup = DEFAULT_GROUP): { group: string; service: string } {
  const at = name.indexOf('@@');
  return at < 0 ? { group: fallbackGroup, service: name } : { group: name.slice(0, at), service: name.slice(at + 2) };
}

/**
 * In-memory naming data of the test server: namespaces, services, instances, and the views that
 * `instance/list` and pushes return. Calls `onChange` after every real change (never for a no-op
 * re-registration or a heartbeat that changes nothing), so pushes follow changes only.
 */
export class NacosNamingState {
  private readonly services = new Map<string, ServiceEntry>();
  private lastStamp = 0;

  constructor(
    private readonly timings: HeartbeatTimings,
    private readonly onChange: (namespaceId: string, groupedName: string) => void,
    private readonly protectThreshold?: number,
  ) {}

  /** Adds or replaces an instance; returns the stored copy. */
  upsert(namespaceId: string, name: string, spec: TestInstanceSpec, beatDriven: boolean): StoredInstance {
    const service = this.serviceOf(namespaceId, name, true);
    const clusterName = spec.clusterName || DEFAULT_CLUSTER;
    const next: StoredInstance = {
      instanceId: `${spec.ip}#${spec.port}#${clusterName}#${name}`,
      ip: spec.ip,
      port: spec.port,
      weight: spec.weight ?? 1,
      healthy: spec.healthy ?? true,
      enabled: spec.enabled ?? true,
      ephemeral: spec.ephemeral ?? true,
      clusterName,
      serviceName: name,
      metadata: { ...(spec.metadata ?? {}) },
      instanceHeartBeatInterval: this.timings.heartBeatInterval,
      instanceHeartBeatTimeOut: this.timings.heartBeatTimeout,
      ipDeleteTimeout: this.timings.ipDeleteTimeout,
      instanceIdGenerator: 'simple',
      beatDriven,
      lastBeatAt: Date.now(),
    };
    const key = instanceKey(next);
    const previous = service.instances.get(key);
    service.instances.set(key, next);
    if (!previous || !sameWireFields(previous, next)) this.changed(service);
    return next;
  }

  /** Applies `patch` to an existing instance; returns false when there is no such instance. */
  update(
    namespaceId: string,
    name: string,
    key: TestInstanceKey,
    patch: Partial<Pick<StoredInstance, 'healthy' | 'enabled' | 'weight' | 'metadata'>>,
  ): boolean {
    const service = this.serviceOf(namespaceId, name, false);
    const current = service?.instances.get(instanceKey(key));
    if (!service || !current) return false;
    const next = { ...current, ...patch };
    service.instances.set(instanceKey(key), next);
    if (!sameWireFields(current, next)) this.changed(service);
    return true;
  }

  /** Removes an instance; returns false when there was none. The service itself stays (as on a real server). */
  remove(namespaceId: string, name: string, key: TestInstanceKey): boolean {
    const service = this.serviceOf(namespaceId, name, false);
    if (!service || !service.instances.delete(instanceKey(key))) return false;
    this.changed(service);
    return true;
  }

  /** Records a client heartbeat; a beat revives an unhealthy instance, as on a real server. */
  beat(namespaceId: string, name: string, key: TestInstanceKey): StoredInstance | undefined {
    const current = this.serviceOf(namespaceId, name, false)?.instances.get(instanceKey(key));
    if (!current) return undefined;
    current.lastBeatAt = Date.now();
    if (!current.healthy) this.update(namespaceId, name, key, { healthy: true });
    return current;
  }

  /** Marks beat-driven instances unhealthy, then deletes them, when their heartbeats stop. */
  expireSilentInstances(now = Date.now()): void {
    for (const service of this.services.values()) {
      for (const instance of [...service.instances.values()]) {
        if (!instance.beatDriven) continue;
        const silentFor = now - instance.lastBeatAt;
        if (silentFor > this.timings.ipDeleteTimeout) this.remove(service.namespaceId, service.groupedName, instance);
        else if (silentFor > this.timings.heartBeatTimeout && instance.healthy) {
          this.update(service.namespaceId, service.groupedName, instance, { healthy: false });
        }
      }
    }
  }

  /** Every stored instance of a service (healthy or not, enabled or not), as stored. */
  instances(namespaceId: string, name: string): StoredInstance[] {
    return [...(this.serviceOf(namespaceId, name, false)?.instances.values() ?? [])].map((i) => ({
      ...i,
      metadata: { ...i.metadata },
    }));
  }

  /** Service names (without group) of one group in a namespace, as `service/list` returns them. */
  serviceNames(namespaceId: string, group: string): string[] {
    return [...this.services.values()]
      .filter((s) => s.namespaceId === namespaceId && splitGroupedName(s.groupedName).group === group)
      .map((s) => splitGroupedName(s.groupedName).service)
      .sort();
  }

  /**
   * The service as one subscriber sees it, like Nacos 2.x `selectInstancesWithHealthyProtection`:
   * only the asked clusters (all when `clusters` is empty), only enabled instances, and, when the service
   * has a protect threshold and the healthy share is at or below it, every instance marked healthy.
   */
  view(
    namespaceId: string,
    name: string,
    clusters: string,
    healthyOnly: boolean,
    cacheMillis: number,
  ): NacosServiceInfoJson {
    const service = this.serviceOf(namespaceId, name, false);
    const wanted = new Set(
      clusters
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    );
    const eligible = [...(service?.instances.values() ?? [])]
      .filter((i) => (wanted.size === 0 || wanted.has(i.clusterName)) && i.enabled)
      .sort((a, b) => a.instanceId.localeCompare(b.instanceId));
    const healthyCount = eligible.filter((i) => i.healthy).length;
    let hosts = eligible.filter((i) => !healthyOnly || i.healthy);
    let reachProtectionThreshold = false;
    if (
      this.protectThreshold !== undefined &&
      eligible.length > 0 &&
      healthyCount / eligible.length <= Math.max(0, this.protectThreshold)
    ) {
      reachProtectionThreshold = true;
      hosts = eligible.map((i) => ({ ...i, healthy: true }));
    }
    const { group } = splitGroupedName(name);
    return {
      name,
      groupName: group,
      clusters,
      cacheMillis,
      hosts: hosts.map(toWire),
      lastRefTime: service?.lastRefTime ?? 0,
      checksum: service?.checksum ?? '',
      allIPs: false,
      reachProtectionThreshold,
      valid: true,
    };
  }

  private serviceOf(namespaceId: string, name: string, create: true): ServiceEntry;
  private serviceOf(namespaceId: string, name: string, create: false): ServiceEntry | undefined;
  private serviceOf(namespaceId: string, name: string, create: boolean): ServiceEntry | undefined {
    const key = `${namespaceId}##${name}`;
    let service = this.services.get(key);
    if (!service && create) {
      service = { namespaceId, groupedName: name, instances: new Map(), lastRefTime: this.stamp(), checksum: '' };
      this.services.set(key, service);
    }
    return service;
  }

  private changed(service: ServiceEntry): void {
    service.lastRefTime = this.stamp();
    const wire = [...service.instances.values()].map(toWire).sort((a, b) => a.instanceId.localeCompare(b.instanceId));
    service.checksum = createHash('md5').update(JSON.stringify(wire)).digest('hex');
    this.onChange(service.namespaceId, service.groupedName);
  }

  /** Strictly increasing milliseconds, so two changes in the same millisecond still order. */
  private stamp(): number {
    this.lastStamp = Math.max(Date.now(), this.lastStamp + 1);
    return this.lastStamp;
  }
}

function instanceKey(key: TestInstanceKey): string {
  return `${key.ip}:${key.port}:${key.clusterName || DEFAULT_CLUSTER}`;
}

function toWire(instance: StoredInstance): NacosHostJson {
  const { beatDriven: _beatDriven, lastBeatAt: _lastBeatAt, ...wire } = instance;
  return { ...wire, metadata: { ...wire.metadata } };
}

function sameWireFields(a: StoredInstance, b: StoredInstance): boolean {
  return JSON.stringify(toWire(a)) === JSON.stringify(toWire(b));
}
