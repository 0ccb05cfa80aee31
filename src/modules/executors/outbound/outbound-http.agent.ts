import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { setMaxListeners } from 'node:events';
import { Agent, buildConnector, request } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { OutboundGuard } from './outbound-guard';
import { portOf } from './outbound-allow-list';
import { OUTBOUND_CONNECT_TIMEOUT_MS } from './dns-lookup.limiter';

/** The `fetch` shape the MCP SDK transports accept (`FetchLike`), kept structural so no SDK type leaks here. */
export type OutboundFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** Bytes of an unread body drained on cancel so its keep-alive socket is reused; beyond that it is cut. */
const DRAIN_ON_CANCEL_BYTES = 64 * 1024;

/** Destination ports that keep a connector of their own (the oldest is dropped past this). */
const MAX_PORT_CONNECTORS = 256;

type UndiciBody = Awaited<ReturnType<typeof request>>['body'];

/**
 * One keep-alive undici Agent, its guard, and a `fetch` on it. Each new socket resolves its host through
 * {@link OutboundGuard.lookupFor} its port: it dials an address vetted at that moment, so a DNS answer that changes
 * between check and connect (rebinding) cannot reach a blocked address. Keep-alive sockets were vetted when opened,
 * by this scope's guard.
 */
export class OutboundScope {
  readonly dispatcher: Agent;
  /** One connector per destination port, since a lookup is not told the port (allow-list entries may name one). */
  private readonly connectors = new Map<number, buildConnector.connector>();

  constructor(readonly guard: OutboundGuard) {
    this.dispatcher = new Agent({ connect: (options, callback) => this.connectorFor(options)(options, callback) });
  }

  private connectorFor(options: buildConnector.Options): buildConnector.connector {
    const port = portOf(options);
    let connector = this.connectors.get(port);
    if (!connector) {
      // Bounded: ports are the callers' choice. A dropped connector only loses its cached TLS sessions.
      if (this.connectors.size >= MAX_PORT_CONNECTORS) this.connectors.delete(this.connectors.keys().next().value!);
      this.connectors.set(
        port,
        (connector = buildConnector({ lookup: this.guard.lookupFor(port), timeout: OUTBOUND_CONNECT_TIMEOUT_MS })),
      );
    }
    return connector;
  }

  /**
   * A WHATWG `fetch` over undici's `request` on this scope's Agent, for the MCP SDK transports. About twice
   * as fast as `fetch` on loopback (no fetch spec machinery); redirects are returned, never followed (the SDK
   * follows same-origin ones itself). Bodies never time out here: the SDK's own timeouts and the caller's
   * signal bound each exchange, and an SSE stream may stay idle for long.
   */
  readonly fetch: OutboundFetch = async (url, init = {}) => {
    const target = typeof url === 'string' ? new URL(url) : url;
    this.guard.checkUrl(target);
    const method = (init.method ?? 'GET').toUpperCase();
    if (init.signal) this.allowManyListeners(init.signal);
    const res = await request(target, {
      method: method as 'GET',
      headers: plainHeaders(init.headers),
      body: requestBody(init.body),
      signal: init.signal ?? undefined,
      dispatcher: this.dispatcher,
      bodyTimeout: 0,
    }).catch((err: unknown) => {
      throw init.signal?.aborted ? abortError(err) : err;
    });
    const nullBody = NULL_BODY_STATUSES.has(res.statusCode) || method === 'HEAD';
    if (nullBody) res.body.resume();
    return new Response(nullBody ? null : webStreamOf(res.body), {
      status: res.statusCode,
      statusText: res.statusText,
      headers: responseHeaders(res.headers),
    });
  };

  private readonly widenedSignals = new WeakSet<AbortSignal>();

  /**
   * The SDK transports pass one long-lived signal to every request of a session; each in-flight request
   * listens on it, so 10+ concurrent calls are normal, not a leak (undici removes its listener when done).
   */
  private allowManyListeners(signal: AbortSignal): void {
    if (this.widenedSignals.has(signal)) return;
    this.widenedSignals.add(signal);
    setMaxListeners(0, signal);
  }
}

/**
 * Every outbound call goes through one of two {@link OutboundScope}s: the platform's (its own tools, MCP services,
 * model providers, knowledge bases, web search) and the tenants' (theirs), whose guard also refuses the targets of
 * OUTBOUND_PLATFORM_ONLY_HOSTS. The two keep separate keep-alive pools, so a tenant's call never rides a socket the
 * platform opened, and separate DNS lookup queues, so tenants' tools pointing at names that never answer cannot hold
 * up the platform's lookups (see DnsLookupLimiter); with that list empty too.
 */
@Injectable()
export class OutboundHttpAgent implements OnApplicationShutdown {
  private readonly platform: OutboundScope;
  private readonly tenants: OutboundScope;

  constructor(guard: OutboundGuard, @Inject(GATEWAY_CONFIG) config: Pick<GatewayConfig, 'outboundPlatformOnlyHosts'>) {
    this.platform = new OutboundScope(guard);
    this.tenants = new OutboundScope(guard.forTenants(config.outboundPlatformOnlyHosts));
  }

  /** The scope of calls made for `owner`: a tenant's id, or null for the platform's own. */
  scope(owner: string | null): OutboundScope {
    return owner === null ? this.platform : this.tenants;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.platform.dispatcher.destroy(), this.tenants.dispatcher.destroy()]);
  }
}

/**
 * A web ReadableStream over an undici body. Not `Readable.toWeb`: that one throws "Controller is already
 * closed" when the reader cancels and the Node stream still ends (the SDK cancels every 202 body). On cancel
 * a short remainder is drained so the keep-alive socket survives; a long one (an SSE stream) is cut.
 */
function webStreamOf(body: UndiciBody): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) body.pause();
      });
      body.on('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      body.on('error', (err: Error) => {
        if (settled) return;
        settled = true;
        controller.error(err);
      });
    },
    pull() {
      body.resume();
    },
    cancel() {
      settled = true;
      body.dump({ limit: DRAIN_ON_CANCEL_BYTES }).catch(() => undefined);
    },
  });
}

function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers || Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [key, value] of entries as Iterable<[string, string]>) out[key] = value;
  return out;
}

function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('OutboundHttpAgent.fetch sends string or byte bodies only');
}

function responseHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [key, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const v of value) out.append(key, v);
    else if (value !== undefined) out.set(key, value);
  }
  return out;
}

/**
 * An aborted request rejects, as `fetch` does, with an error named AbortError (its cause: what undici threw, often the
 * signal's DOMException). Made here so that it is an `Error` of this module's realm too: clients (the OpenAI SDK, which
 * tells its own timeouts from other failures by the name) check `instanceof Error` first.
 */
function abortError(cause: unknown): Error {
  const err = new Error('This operation was aborted', { cause });
  err.name = 'AbortError';
  return err;
}
