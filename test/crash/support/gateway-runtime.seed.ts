import type { GatewayProcess, GatewayResponse } from '@test/support/gateway-process';

/** `Authorization` header of a runtime key. */
export type RuntimeAuth = { Authorization: string };

/** What {@link seedAgent} created. */
export interface SeededAgent {
  agentId: string;
  /** Tool ids by tool name. */
  toolIds: Record<string, string>;
  /** A runtime key of the agent's tenant. */
  runtime: RuntimeAuth;
}

/** One tool call as the model emits it. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

/** Throws with the gateway's answer when the status is not the expected one (set-up calls must succeed). */
export function expectStatus<T>(res: GatewayResponse<T>, status: number, what: string): T {
  if (res.status !== status)
    throw new Error(`${what}: expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Registers `tools` (admin tool bodies, `tenantId` filled in), an agent of `tenantId` bound to them, and a
 * runtime key of the tenant, through the admin API of a running gateway.
 */
export async function seedAgent(
  gw: GatewayProcess,
  tenantId: string,
  tools: Array<Record<string, unknown>>,
): Promise<SeededAgent> {
  const toolIds: Record<string, string> = {};
  for (const tool of tools) {
    const created = expectStatus(
      await gw.call('POST', '/api/v1/admin/tools', { permissionTags: [], tenantId, ...tool }, gw.admin),
      201,
      `create tool ${String(tool.name)}`,
    );
    toolIds[created.name] = created.id;
  }
  const agent = expectStatus(
    await gw.call('POST', '/api/v1/admin/agents', { name: `agent-${tenantId}`, tenantId }, gw.admin),
    201,
    'create agent',
  );
  expectStatus(
    await gw.call('PUT', `/api/v1/admin/agents/${agent.id}/tools`, { toolIds: Object.values(toolIds) }, gw.admin),
    200,
    'bind tools',
  );
  const key = expectStatus(
    await gw.call(
      'POST',
      '/api/v1/admin/api-keys',
      { name: `runtime-${tenantId}`, role: 'runtime', tenantId },
      gw.admin,
    ),
    201,
    'create runtime key',
  );
  return { agentId: agent.id, toolIds, runtime: { Authorization: `Bearer ${key.key}` } };
}

/** Opens a session of the agent for user `u1` and returns its id. */
export async function openSession(gw: GatewayProcess, seeded: SeededAgent): Promise<string> {
  const res = await gw.call(
    'POST',
    '/api/v1/sessions',
    { agentId: seeded.agentId, userId: 'u1', permissions: [] },
    seeded.runtime,
  );
  return expectStatus(res, 201, 'open session').id;
}

/** `POST /sessions/{id}/act` with the given calls; resolves with any status, rejects if the connection breaks. */
export function act(
  gw: GatewayProcess,
  runtime: RuntimeAuth,
  sessionId: string,
  iteration: number,
  toolCalls: ToolCall[],
): Promise<GatewayResponse> {
  return gw.call('POST', `/api/v1/sessions/${sessionId}/act`, { iteration, toolCalls }, runtime);
}

/** `POST /sessions/{id}/resume` with a decision. */
export function resume(
  gw: GatewayProcess,
  runtime: RuntimeAuth,
  sessionId: string,
  body: Record<string, unknown>,
): Promise<GatewayResponse> {
  return gw.call('POST', `/api/v1/sessions/${sessionId}/resume`, body, runtime);
}
