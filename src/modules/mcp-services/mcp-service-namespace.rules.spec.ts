import type { GatewayConfig } from '@app/config/gateway-config';
import { refusedNamespaceReason } from './mcp-service-namespace.rules';
import type { McpServiceRecord } from './mcp-service.types';

const config = (tenantNamespaces: Record<string, string[]>): Pick<GatewayConfig, 'nacos'> => ({
  nacos: {
    serverAddr: '127.0.0.1:8848',
    namespace: 'platform',
    tenantNamespaces: new Map(Object.entries(tenantNamespaces)),
    username: '',
    password: '',
  },
});
const service = (overrides: Partial<McpServiceRecord>): McpServiceRecord =>
  ({
    name: 'weather',
    kind: 'NACOS',
    serviceName: 'weather-mcp',
    namespaceId: 'shared',
    namespaceChosenBy: 'TENANT',
    tenantId: 'acme',
    ...overrides,
  }) as McpServiceRecord;

describe('refusedNamespaceReason', () => {
  it("allows a tenant-chosen namespace while NACOS_TENANT_NAMESPACES assigns it to the service's tenant", () => {
    expect(refusedNamespaceReason(service({}), config({ acme: ['own', 'shared'] }))).toBeNull();
  });

  it("refuses it once the namespace is no longer its tenant's, saying why and what the platform admin does", () => {
    const moved = refusedNamespaceReason(service({}), config({ acme: ['own'], globex: ['shared'] }));
    expect(moved).toContain('Nacos namespace shared');
    expect(moved).toContain('no longer assigns to acme (its namespaces are own)');
    expect(moved).toContain('assigns shared to acme again in NACOS_TENANT_NAMESPACES, or deletes the service');
    expect(refusedNamespaceReason(service({}), config({}))).toContain('(it has none)');
  });

  it('keeps a namespace the platform admin assigned, or one of a service registered before it was recorded', () => {
    const moved = config({ acme: ['own'], globex: ['shared'] });
    expect(refusedNamespaceReason(service({ namespaceChosenBy: 'PLATFORM' }), moved)).toBeNull();
    expect(refusedNamespaceReason(service({ namespaceChosenBy: null }), moved)).toBeNull();
  });

  it('concerns NACOS services only', () => {
    const moved = config({ acme: ['own'] });
    expect(refusedNamespaceReason(service({ kind: 'STATIC', namespaceId: null }), moved)).toBeNull();
  });
});
