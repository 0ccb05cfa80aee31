import { GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import type { CrashRemoteServer } from './crash-remote.server';
import { act, expectStatus, openSession, seedAgent, SeededAgent } from './gateway-runtime.seed';

/** The tool of the HITL crash tests: HIGH_RISK, so every call needs a human; it posts `{ref}` to the remote. */
export const WIRE_TOOL = 'wire_funds';

const wireTool = (remote: CrashRemoteServer) => ({
  name: WIRE_TOOL,
  description: 'Moves money: every call needs a human',
  parameters: { type: 'object', properties: { ref: { type: 'string' } }, required: ['ref'] },
  serviceType: 'HTTP',
  httpMethod: 'POST',
  endpoint: remote.url('/wire'),
  sideEffect: 'HIGH_RISK',
});

/** Starts gateways on one database, named `${prefix}-${name}`, loopback allowed and the dead-owner sweep off. */
export function gatewayStarter(
  databaseUrl: () => string,
  prefix: string,
  common: Record<string, string> = {},
): (name: string, env?: Record<string, string>) => Promise<GatewayProcess> {
  return (name, env = {}) =>
    startGatewayProcess({
      databaseUrl: databaseUrl(),
      instanceId: `${prefix}-${name}`,
      env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', JOURNAL_SWEEP_INTERVAL_MS: '0', ...common, ...env },
    });
}

/** Seeds `tenant` with the wire tool through `gateway` and opens a session; the gateway is stopped after. */
export async function wireSession(
  gateway: GatewayProcess,
  tenant: string,
  remote: CrashRemoteServer,
): Promise<{ seeded: SeededAgent; sessionId: string }> {
  try {
    const seeded = await seedAgent(gateway, tenant, [wireTool(remote)]);
    return { seeded, sessionId: await openSession(gateway, seeded) };
  } finally {
    await gateway.stop();
  }
}

/** {@link wireSession}, whose first act calls the tool with `{ref}` (call `wire-1`): it waits for approval. */
export async function wireSessionAwaitingApproval(
  gateway: GatewayProcess,
  tenant: string,
  remote: CrashRemoteServer,
  ref: string,
): Promise<{ seeded: SeededAgent; sessionId: string; requestId: string }> {
  try {
    const seeded = await seedAgent(gateway, tenant, [wireTool(remote)]);
    const sessionId = await openSession(gateway, seeded);
    const asked = expectStatus(
      await act(gateway, seeded.runtime, sessionId, 1, [{ id: 'wire-1', name: WIRE_TOOL, arguments: { ref } }]),
      200,
      'act',
    );
    expect(asked.hitlRequest).toMatchObject({ requestType: 'TOOL_APPROVAL', toolCallId: 'wire-1' });
    return { seeded, sessionId, requestId: asked.hitlRequest.id as string };
  } finally {
    await gateway.stop();
  }
}
