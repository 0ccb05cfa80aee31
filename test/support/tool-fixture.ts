import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';

/** A registered tool descriptor with neutral values; override what the test is about. */
export function toolFixture(overrides: Partial<ToolDescriptor>): ToolDescriptor {
  return {
    id: 'tool-1',
    tenantId: null,
    name: 'test_tool',
    description: 'a tool under test',
    parameters: { type: 'object' },
    serviceType: 'HTTP',
    endpoint: 'http://127.0.0.1:1/',
    httpMethod: 'GET',
    headers: null,
    timeoutMs: null,
    permissionTags: [],
    tags: [],
    sideEffect: 'READ_ONLY',
    remoteName: null,
    requires: [],
    enabled: true,
    status: 'ACTIVE',
    source: 'DB',
    version: 1,
    hitl: null,
    result: null,
    mcpServiceId: null,
    createdAt: 0,
    updatedAt: 0,
    ...overrides,
  };
}
