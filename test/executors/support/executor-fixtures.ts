import { loadGatewayConfig, GatewayConfig } from '@app/config/gateway-config';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';

import type { ToolInvocation } from '@app/modules/executors/tool-executor';
import type { ConfigVersionService } from '@app/database/config-version.service';
import { ToolHeadersResolver } from '@app/modules/executors/secrets/tool-headers.resolver';
import { ToolSecretsResolver } from '@app/modules/tenant-secrets/tool-secrets.resolver';
import { TenantSecretsCipher } from '@app/modules/tenant-secrets/tenant-secrets.cipher';
import type { TenantSecretsRepository } from '@app/modules/tenant-secrets/tenant-secrets.repository';

/** A validated config as the gateway would load it, loopback allow-listed unless the test says otherwise. */
export function executorTestConfig(env: Record<string, string> = {}): GatewayConfig {
  return loadGatewayConfig({
    NODE_ENV: 'test',
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    TOOL_RETRY_BASE_DELAY_MS: '20',
    TOOL_RETRY_MAX_AFTER_MS: '5000',
    TOOL_DEFAULT_TIMEOUT_MS: '10000',
    ...env,
  });
}

let callSeq = 0;

/** The invocation the call path would hand an executor for one attempt. */
export function invocationOf(
  tool: ToolDescriptor,
  args: Record<string, unknown>,
  attempt: number,
  signal: AbortSignal,
  toolCallId?: string,
): ToolInvocation {
  return {
    tool,
    arguments: args,
    toolCallId: toolCallId ?? `call-${++callSeq}`,
    tenantId: 't1',
    userId: 'u1',
    attempt,
    signal,
  };
}

/**
 * The header resolver as the ExecutorsModule wires it, for executor tests without a database: platform-wide
 * tools resolve TOOL_SECRETS; a tenant's tool finds no tenant secrets (use the app for those).
 */
export function headersResolverOf(config: GatewayConfig): ToolHeadersResolver {
  const noRows = { findAllOfTenant: async () => [] } as unknown as TenantSecretsRepository;
  const versions = { lastSeen: () => '0:0', read: async () => '0:0' } as unknown as ConfigVersionService;
  return new ToolHeadersResolver(new ToolSecretsResolver(config, noRows, new TenantSecretsCipher(config), versions));
}
