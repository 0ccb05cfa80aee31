import { urlCredentialProblem } from '@app/modules/tool-registry/tool-credential.rules';
import type { NacosInstance } from './nacos-naming.adapter';

/** MCP transports the gateway can open to a discovered server. */
export type McpTransport = 'streamable-http' | 'sse';

/** Where and how to reach the MCP server behind one Nacos instance. */
export interface McpEndpoint {
  url: string;
  transport: McpTransport;
}

/** What an instance whose metadata says nothing gets (`MCP_DEFAULT_PATH`, `MCP_DEFAULT_TRANSPORT`). */
export interface McpEndpointDefaults {
  path: string;
  transport: McpTransport;
}

/**
 * Instance metadata keys read by {@link mcpEndpointOf}:
 * `mcp.url` a full http(s) URL that wins over everything else; `mcp.path` the endpoint path on the
 * instance's ip:port; `mcp.transport` the transport; `secure` = `true` for https.
 */
const MCP_METADATA_KEYS = { url: 'mcp.url', path: 'mcp.path', transport: 'mcp.transport', secure: 'secure' } as const;

/** Thrown when an instance's metadata names an endpoint the gateway cannot use. */
export class NacosMcpEndpointError extends Error {
  override readonly name = 'NacosMcpEndpointError';
}

/** Accepted spellings of each transport, lower-cased (Nacos 3 MCP registry says `mcp-sse` / `mcp-streamable`). */
const TRANSPORT_ALIASES: Record<string, McpTransport> = {
  'streamable-http': 'streamable-http',
  streamablehttp: 'streamable-http',
  'mcp-streamable': 'streamable-http',
  http: 'streamable-http',
  sse: 'sse',
  'mcp-sse': 'sse',
};

/** The MCP endpoint of an instance, from its metadata with `defaults` for what the metadata leaves out. */
export function mcpEndpointOf(
  instance: Pick<NacosInstance, 'ip' | 'port' | 'metadata'>,
  defaults: McpEndpointDefaults,
): McpEndpoint {
  const metadata = instance.metadata ?? {};
  const transport = transportOf(metadata[MCP_METADATA_KEYS.transport], defaults.transport, instance);
  const fullUrl = metadata[MCP_METADATA_KEYS.url]?.trim();
  if (fullUrl) return { url: checkedUrl(fullUrl, instance), transport };
  const scheme = metadata[MCP_METADATA_KEYS.secure]?.trim().toLowerCase() === 'true' ? 'https' : 'http';
  const host = instance.ip.includes(':') ? `[${instance.ip}]` : instance.ip;
  const rawPath = metadata[MCP_METADATA_KEYS.path]?.trim() || defaults.path;
  const path = rawPath.startsWith('/') ? rawPath : `/${rawPath}`;
  return { url: checkedUrl(`${scheme}://${host}:${instance.port}${path}`, instance), transport };
}

/**
 * Picks one instance with probability proportional to its weight, among healthy and enabled ones
 * with a positive weight (weight 0 is never picked). Undefined when none qualifies.
 */
export function pickWeighted<T extends Pick<NacosInstance, 'weight' | 'healthy' | 'enabled'>>(
  instances: readonly T[],
  random: () => number = Math.random,
): T | undefined {
  const eligible = instances.filter((i) => i.healthy && i.enabled && Number.isFinite(i.weight) && i.weight > 0);
  if (eligible.length === 0) return undefined;
  const total = eligible.reduce((sum, i) => sum + i.weight, 0);
  let target = random() * total;
  for (const instance of eligible) {
    target -= instance.weight;
    if (target < 0) return instance;
  }
  // random() returned 1 or rounding left a remainder: the last slot owns the top of the range.
  return eligible[eligible.length - 1];
}

function transportOf(
  raw: string | undefined,
  fallback: McpTransport,
  instance: Pick<NacosInstance, 'ip' | 'port'>,
): McpTransport {
  const value = raw?.trim().toLowerCase();
  if (!value) return fallback;
  const transport = TRANSPORT_ALIASES[value];
  if (!transport) {
    throw new NacosMcpEndpointError(
      `Instance ${instance.ip}:${instance.port} has metadata ${MCP_METADATA_KEYS.transport}="${raw}"; use "streamable-http" or "sse".`,
    );
  }
  return transport;
}

function checkedUrl(candidate: string, instance: Pick<NacosInstance, 'ip' | 'port'>): string {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    throw new NacosMcpEndpointError(
      `Instance ${instance.ip}:${instance.port} gives an MCP URL that does not parse: "${candidate}"; fix its metadata ${MCP_METADATA_KEYS.url} or ${MCP_METADATA_KEYS.path}.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NacosMcpEndpointError(
      `Instance ${instance.ip}:${instance.port} gives an MCP URL with scheme ${url.protocol}; only http and https are supported.`,
    );
  }
  // The URL is quoted wherever a call or a sync fails (to the model, the tool log, the health reason): a credential
  // in it would go along. Refused as for a STATIC service's URL, never echoed.
  const credential = urlCredentialProblem(
    candidate,
    MCP_METADATA_KEYS.url,
    "register the instance without it and put the credential in the MCP service's headers as ${secret:NAME}",
  );
  if (credential) {
    throw new NacosMcpEndpointError(
      `Instance ${instance.ip}:${instance.port} gives an MCP URL (metadata ${MCP_METADATA_KEYS.url} or ${MCP_METADATA_KEYS.path}) that ${credential.problems[0]}.`,
    );
  }
  return url.toString();
}
