import type { TestGateway } from '@test/support/gateway-test-app';
import { waitFor } from '@test/support/wait-for';

/** A tool row as the admin API returns it (the fields the MCP tests read). */
export interface ToolRow {
  id: string;
  name: string;
  remoteName?: string;
  description: string;
  parameters: Record<string, unknown>;
  serviceType: string;
  endpoint: string;
  sideEffect: string;
  status: string;
  source: string;
  version: number;
  tenantId: string | null;
  mcpServiceId: string | null;
}

/** A sync report as the API returns it. */
export interface SyncReport {
  added: number;
  updated: number;
  disabled: number;
  unchanged: number;
  collisions: Array<Record<string, unknown>>;
  rejected: Array<{ remoteName: string; problems: string[] }>;
  skipped: boolean;
  skippedReason?: string;
  trigger: string;
  tools: { added: string[]; updated: string[]; disabled: string[] };
  listedFrom?: string;
  finishedAt: string;
  durationMs: number;
  error?: string;
}

/** An MCP service as the API returns it. */
export interface ServiceView {
  id: string;
  name: string;
  health: 'UP' | 'DOWN' | 'UNKNOWN';
  healthReason: string | null;
  lastSyncAt: string | null;
  lastSync: SyncReport | null;
  [key: string]: unknown;
}

/** What the MCP sync tests do through the REST API. */
export class McpSyncApi {
  constructor(private readonly gw: TestGateway) {}

  async createService(body: Record<string, unknown>): Promise<ServiceView> {
    return (await this.gw.http.post('/api/v1/admin/mcp-services').set(this.gw.admin).send(body).expect(201)).body;
  }

  async service(id: string): Promise<ServiceView> {
    return (await this.gw.http.get(`/api/v1/admin/mcp-services/${id}`).set(this.gw.admin).expect(200)).body;
  }

  async sync(id: string): Promise<SyncReport> {
    return (await this.gw.http.post(`/api/v1/admin/mcp-services/${id}/sync`).set(this.gw.admin).expect(200)).body;
  }

  /** The registry rows of one service, by registry name. */
  async toolsOf(serviceId: string): Promise<Record<string, ToolRow>> {
    const res = await this.gw.http.get('/api/v1/admin/tools?source=MCP&pageSize=500').set(this.gw.admin).expect(200);
    return Object.fromEntries(
      (res.body.items as ToolRow[]).filter((t) => t.mcpServiceId === serviceId).map((t) => [t.name, t]),
    );
  }

  /** Waits until the service's last sync finished after `since` (epoch ms) and satisfies `check`. */
  async syncedAfter(
    id: string,
    since: number,
    check: (report: SyncReport) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<SyncReport> {
    return waitFor(
      async () => {
        const report = (await this.service(id)).lastSync;
        return report && Date.parse(report.finishedAt) >= since && check(report) ? report : undefined;
      },
      { timeoutMs, intervalMs: 25, description: `a sync of MCP service ${id}` },
    );
  }

  async createAgent(tenantId: string, name: string, extra: Record<string, unknown> = {}): Promise<string> {
    return (
      await this.gw.http
        .post('/api/v1/admin/agents')
        .set(this.gw.admin)
        .send({ name, tenantId, ...extra })
        .expect(201)
    ).body.id;
  }

  async bind(agentId: string, toolIds: string[]): Promise<void> {
    await this.gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(this.gw.admin).send({ toolIds }).expect(200);
  }

  /** tool-specs with explain: the emitted names and the decision per tool name. */
  async specs(
    runtime: { Authorization: string },
    agentId: string,
  ): Promise<{ names: string[]; layers: Record<string, string>; reasons: Record<string, string> }> {
    const res = await this.gw.http
      .post(`/api/v1/agents/${agentId}/tool-specs`)
      .set(runtime)
      .send({ userId: 'u1', permissions: [], explain: true })
      .expect(200);
    const decisions = res.body.decisions as Array<{ name: string; layer: string; reason: string }>;
    return {
      names: (res.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name).sort(),
      layers: Object.fromEntries(decisions.map((d) => [d.name, d.layer])),
      reasons: Object.fromEntries(decisions.map((d) => [d.name, d.reason])),
    };
  }

  /** executeDirect of `name` for an agent. */
  async execute(
    runtime: { Authorization: string },
    agentId: string,
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<{ status: string; content: string; isError: boolean; attempts: number; errorClass: string | null }> {
    return (
      await this.gw.http
        .post(`/api/v1/tools/${name}/execute`)
        .set(runtime)
        .send({ agentId, userId: 'u1', permissions: [], arguments: args })
        .expect(200)
    ).body;
  }
}
