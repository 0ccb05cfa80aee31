import type { GatewayConfig } from '@app/config/gateway-config';
import type { McpClientPool } from '@app/modules/executors/mcp/mcp-client.pool';
import type { ToolHeadersResolver } from '@app/modules/executors/secrets/tool-headers.resolver';
import { ToolCallError, type ToolInvocation } from '@app/modules/executors/tool-executor';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import type { McpServiceDirectory } from '../mcp-service.directory';
import type { McpServiceRecord } from '../mcp-service.types';
import { McpNacosToolExecutor } from './mcp-nacos.executor';
import { NacosInstanceCache } from './nacos-instance.cache';
import type { NacosNamingPort } from './nacos-naming.adapter';

const config = {
  nacos: { serverAddr: 'nacos:8848', namespace: 'platform', username: '', password: '' },
  mcp: { defaultPath: '/mcp', defaultTransport: 'streamable-http' },
  toolDefaultTimeoutMs: 1000,
};

describe('McpNacosToolExecutor', () => {
  describe('execute', () => {
    it("refuses a tool whose service's tenant-chosen namespace is no longer its tenant's, asking Nacos nothing", async () => {
      const service = {
        id: 'svc-1',
        name: 'weather',
        kind: 'NACOS',
        serviceName: 'weather-mcp',
        groupName: 'MCP',
        namespaceId: 'shared',
        namespaceChosenBy: 'TENANT',
        tenantId: 'acme',
      } as McpServiceRecord;
      const naming: NacosNamingPort = {
        getHealthyInstances: jest.fn(),
        subscribe: jest.fn(),
        close: jest.fn(),
      };
      const callTool = jest.fn();
      const executor = new McpNacosToolExecutor(
        { callTool } as unknown as McpClientPool,
        { headersToSend: jest.fn() } as unknown as ToolHeadersResolver,
        { get: () => Promise.resolve(service) } as unknown as McpServiceDirectory,
        new NacosInstanceCache(),
        naming,
        {
          ...config,
          nacos: { ...config.nacos, tenantNamespaces: new Map([['globex', ['shared']]]) },
        } as unknown as GatewayConfig,
      );
      const tool = { name: 'weather_forecast', tenantId: 'acme', mcpServiceId: 'svc-1' } as ToolDescriptor;
      const invocation = { tool, arguments: {}, tenantId: 'acme', signal: new AbortController().signal };

      const refused = await executor.execute(invocation as unknown as ToolInvocation).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(ToolCallError);
      expect(refused).toMatchObject({
        errorClass: 'INVALID_REQUEST',
        transient: false,
        reachedRemote: false,
        message: expect.stringContaining('Nacos namespace shared, which its tenant admin chose'),
      });
      expect(naming.getHealthyInstances).not.toHaveBeenCalled();
      expect(naming.subscribe).not.toHaveBeenCalled();
      expect(callTool).not.toHaveBeenCalled();
      executor.onApplicationShutdown();
    });
  });
});
