import { canonicalJson } from '@app/common/canonical-json';
import { definitionChecksum, definitionOfRow } from './feign-tool.checksum';
import type { LocalToolDefinition } from './feign-tool.types';
import type { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';

const definition = (overrides: Partial<LocalToolDefinition> = {}): LocalToolDefinition => ({
  name: 'get_order',
  description: 'Looks up an order.',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  source: 'FEIGN',
  serviceType: 'FEIGN',
  endpoint: 'OrdersService.getOrder',
  sideEffect: 'READ_ONLY',
  timeoutMs: null,
  permissionTags: [],
  tags: [],
  requires: [],
  hitl: null,
  result: null,
  ...overrides,
});

describe('canonicalJson', () => {
  it('sorts object keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 2 } })).toBe('{"a":{"c":2,"d":[{"y":2,"z":1}]},"b":1}');
  });

  it('drops undefined members but keeps null', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });

  it('keeps array order (enum and required order are meaningful)', () => {
    expect(canonicalJson(['b', 'a'])).not.toBe(canonicalJson(['a', 'b']));
  });
});

describe('definitionChecksum', () => {
  it('is a sha256 hex digest that fits definition_checksum', () => {
    expect(definitionChecksum(definition())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on the order keys were written in', () => {
    const reordered = definition({
      parameters: { required: ['orderId'], properties: { orderId: { type: 'string' } }, type: 'object' },
    });
    expect(definitionChecksum(reordered)).toBe(definitionChecksum(definition()));
  });

  it('changes when any declared field changes', () => {
    const base = definitionChecksum(definition());
    expect(definitionChecksum(definition({ description: 'Other.' }))).not.toBe(base);
    expect(definitionChecksum(definition({ timeoutMs: 5000 }))).not.toBe(base);
    expect(definitionChecksum(definition({ hitl: { approvalText: 'ok?' } }))).not.toBe(base);
    expect(
      definitionChecksum(definition({ parameters: { type: 'object', properties: { orderId: { type: 'integer' } } } })),
    ).not.toBe(base);
  });
});

describe('definitionOfRow', () => {
  it('reads back the checksum of the definition a row was written from (after a JSON round trip)', () => {
    const d = definition({
      hitl: { approvalText: 'Sure?', rejectPolicy: 'RETURN_ERROR' },
      permissionTags: ['orders:read'],
      timeoutMs: 1500,
    });
    const row = JSON.parse(
      JSON.stringify({ ...d, id: 'x', tenantId: null, enabled: true, status: 'ACTIVE', version: 3 }),
    ) as AiToolEntity;
    expect(definitionChecksum(definitionOfRow(row))).toBe(definitionChecksum(d));
  });
});
