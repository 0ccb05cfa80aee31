import { startTestGateway, type TestGateway } from '@test/support/gateway-test-app';

/**
 * The whole gateway in-process with MCP-sync-friendly defaults: loopback allowed for outbound calls,
 * repair off (tests drive it), a short debounce. Override any of them through `env`.
 */
export function startMcpSyncGateway(databaseUrl: string, env: Record<string, string> = {}): Promise<TestGateway> {
  return startTestGateway(databaseUrl, {
    MCP_REPAIR_ENABLED: 'false',
    MCP_SYNC_DEBOUNCE_MS: '200',
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    TOOL_RETRY_BASE_DELAY_MS: '20',
    ...env,
  });
}
