import { NacosTestServer } from '@test/support/nacos/nacos-test-server';
import { CatalogMcpServer, catalogTool, type CatalogTool } from '@test/mcp-services/support/catalog-mcp.server';

/** Shape of the benchmark fleet. */
export interface SyncFleetOptions {
  services: number;
  toolsPerService: number;
  /** MCP server processes (in-process SDK servers) the services share; each service has its own path on one. */
  servers: number;
}

export const NAMESPACE = 'bench';
export const GROUP = 'MCP_BENCH';

/** `toolsPerService` tools with a small schema; `revision` changes every description (a new version of each). */
export function fleetTools(count: number, revision = 1, extra: string[] = []): CatalogTool[] {
  const tools = Array.from({ length: count }, (_v, i) =>
    catalogTool(`tool_${String(i).padStart(2, '0')}`, {
      description: `Benchmark tool ${i}, revision ${revision}.`,
      inputSchema: {
        type: 'object',
        properties: { q: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
        required: ['q'],
      },
      annotations: i % 2 === 0 ? { readOnlyHint: true } : { idempotentHint: true },
    }),
  );
  return [...tools, ...extra.map((name) => catalogTool(name))];
}

/**
 * The Nacos test server plus the MCP servers behind it: service `svc-NN` has one instance on server
 * NN % servers, with metadata `mcp.path = /mcp/svc-NN`, so every service has its own URL (and pooled session).
 */
export class SyncFleet {
  readonly nacos = new NacosTestServer();
  readonly servers: CatalogMcpServer[];
  /** A second deployment: the same tools plus `extra`, for the instance-change measurement. */
  readonly nextVersion: CatalogMcpServer;
  addr = '';

  constructor(readonly options: SyncFleetOptions) {
    this.servers = Array.from(
      { length: options.servers },
      (_v, i) => new CatalogMcpServer(fleetTools(options.toolsPerService), { label: `mcp-${i}` }),
    );
    this.nextVersion = new CatalogMcpServer(fleetTools(options.toolsPerService, 1, ['extra']), { label: 'mcp-next' });
  }

  serviceName(i: number): string {
    return `svc-${String(i).padStart(2, '0')}`;
  }

  serverOf(i: number): CatalogMcpServer {
    return this.servers[i % this.servers.length];
  }

  async start(): Promise<void> {
    this.addr = (await this.nacos.start()).addr;
    await Promise.all([...this.servers, this.nextVersion].map((s) => s.start()));
    for (let i = 0; i < this.options.services; i++) {
      this.nacos.registerInstance(NAMESPACE, GROUP, this.serviceName(i), {
        ip: '127.0.0.1',
        port: this.serverOf(i).port,
        metadata: { 'mcp.path': `/mcp/${this.serviceName(i)}` },
      });
    }
  }

  /** Moves service i to the next version: its instance on the new deployment registered, the old one removed (one push). */
  redeploy(i: number): void {
    const name = this.serviceName(i);
    this.nacos.registerInstance(NAMESPACE, GROUP, name, {
      ip: '127.0.0.1',
      port: this.nextVersion.port,
      metadata: { 'mcp.path': `/mcp/${name}` },
    });
    this.nacos.removeInstance(NAMESPACE, GROUP, name, { ip: '127.0.0.1', port: this.serverOf(i).port });
  }

  /** Every tool's description changes on every server, without notifying anyone. */
  async reviseAll(revision: number): Promise<void> {
    await Promise.all(
      this.servers.map((s) => s.setTools(fleetTools(this.options.toolsPerService, revision), { notify: false })),
    );
  }

  async stop(): Promise<void> {
    await Promise.all([...this.servers, this.nextVersion].map((s) => s.stop()));
    await this.nacos.stop();
  }
}
