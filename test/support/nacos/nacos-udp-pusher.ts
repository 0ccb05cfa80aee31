import dgram from 'node:dgram';
import { gzipSync } from 'node:zlib';

/**
 * A client that asked `instance/list` with a `udpPort`: Nacos keys it by (clientIP, udpPort, clusters)
 * per service and pushes that service to it on every change.
 */
export interface PushSubscriber {
  namespaceId: string;
  groupedName: string;
  /** `clientIP` the client reported (its first non-loopback address, from the `address` package). */
  clientIp: string;
  udpPort: number;
  /** The `clusters` parameter of the query, echoed in every push so the client files it under the same key. */
  clusters: string;
  /** Where pushes go: the HTTP peer address (see {@link NacosUdpPusher}). */
  address: string;
  lastQueryAt: number;
}

/** Totals of one service or of the whole server. */
export interface PushCounters {
  pushesSent: number;
  pushAcks: number;
}

/** Real servers gzip a push whose JSON is this long or longer (`compressIfNecessary`). */
const GZIP_FROM_BYTES = 1024;

/**
 * The UDP half of the v1 naming protocol. Sends `{"type":"dom","data":"<service JSON>","lastRefTime":id}`
 * and counts the client's `{"type":"push-ack","lastRefTime":id}` replies.
 *
 * A real server sends to the reported `clientIP`; this one sends to the HTTP peer address instead
 * (127.0.0.1 in tests), because the reported address is a LAN interface that tests must not use.
 * It does not retry unacknowledged pushes (a real server retries once after 10 s).
 */
export class NacosUdpPusher {
  private socket?: dgram.Socket;
  private readonly subscribers = new Map<string, PushSubscriber>();
  private readonly pushedService = new Map<number, string>();
  private readonly perService = new Map<string, PushCounters>();
  private nextPushId = Date.now() * 1000;
  readonly totals: PushCounters = { pushesSent: 0, pushAcks: 0 };

  constructor(private readonly subscriberTtlMs: number) {}

  async start(): Promise<void> {
    const socket = dgram.createSocket('udp4');
    socket.on('message', (msg) => this.onAck(msg));
    // A push to a client that has gone away must not crash the test run.
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    this.socket = socket;
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    this.subscribers.clear();
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  /** Adds a subscriber or refreshes its expiry; every poll of a push-enabled client does this. */
  addOrRefresh(subscriber: Omit<PushSubscriber, 'lastQueryAt'>): void {
    const key = [
      subscriber.namespaceId,
      subscriber.groupedName,
      subscriber.clientIp,
      subscriber.udpPort,
      subscriber.clusters,
    ].join('|');
    this.subscribers.set(key, { ...subscriber, lastQueryAt: Date.now() });
  }

  /** Live subscribers of a service; one that has not polled within the TTL is dropped. */
  subscribersOf(namespaceId: string, groupedName: string): PushSubscriber[] {
    const now = Date.now();
    const live: PushSubscriber[] = [];
    for (const [key, sub] of this.subscribers) {
      if (now - sub.lastQueryAt > this.subscriberTtlMs) this.subscribers.delete(key);
      else if (sub.namespaceId === namespaceId && sub.groupedName === groupedName) live.push(sub);
    }
    return live;
  }

  /** Sends one `dom` push with `serviceJson` as its data. */
  push(subscriber: PushSubscriber, serviceJson: string): void {
    if (!this.socket) return;
    const id = this.nextPushId++;
    const raw = Buffer.from(JSON.stringify({ type: 'dom', data: serviceJson, lastRefTime: id }));
    const packet = raw.length >= GZIP_FROM_BYTES ? gzipSync(raw) : raw;
    const serviceKey = `${subscriber.namespaceId}|${subscriber.groupedName}`;
    this.pushedService.set(id, serviceKey);
    this.countersOf(serviceKey).pushesSent++;
    this.totals.pushesSent++;
    this.socket.send(packet, subscriber.udpPort, subscriber.address);
  }

  /** Counters of one service. */
  countersOf(serviceKey: string): PushCounters {
    let counters = this.perService.get(serviceKey);
    if (!counters) {
      counters = { pushesSent: 0, pushAcks: 0 };
      this.perService.set(serviceKey, counters);
    }
    return counters;
  }

  private onAck(msg: Buffer): void {
    let ack: { type?: string; lastRefTime?: number };
    try {
      ack = JSON.parse(msg.toString('utf8')) as typeof ack;
    } catch {
      return;
    }
    if (ack.type !== 'push-ack' || typeof ack.lastRefTime !== 'number') return;
    const serviceKey = this.pushedService.get(ack.lastRefTime);
    if (serviceKey === undefined) return;
    this.pushedService.delete(ack.lastRefTime);
    this.countersOf(serviceKey).pushAcks++;
    this.totals.pushAcks++;
  }
}
