import { sentPropertyKey } from './sent-property-key';
import { anthropicSpecViolations } from './anthropic-spec.validator';
import { toAnthropicInputSchema, toAnthropicToolSpec } from './anthropic-tool-spec.emitter';
import { deepFreeze } from './model-formats.test-helpers';

const anthropicKey = (name: string) => sentPropertyKey(name, 'anthropic');

describe('toAnthropicToolSpec', () => {
  it('emits {name, description, input_schema} with the schema passed through', () => {
    const parameters = {
      type: 'object',
      properties: { when: { type: 'string', format: 'date-time' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['when'],
      additionalProperties: false,
    };
    expect(toAnthropicToolSpec(deepFreeze({ name: 'book', description: 'Book a slot.', parameters }))).toEqual({
      name: 'book',
      description: 'Book a slot.',
      input_schema: parameters,
    });
  });

  it('adds type object and empty properties to a root that lacks them', () => {
    const spec = toAnthropicToolSpec(
      deepFreeze({ name: 'now', description: 'Time.', parameters: { description: 'none' } }),
    );
    expect(spec).toEqual({
      name: 'now',
      description: 'Time.',
      input_schema: { description: 'none', type: 'object', properties: {} },
    });
  });

  it('replaces a properties value that is not an object', () => {
    const spec = toAnthropicToolSpec({ name: 'x', description: 'x', parameters: { type: 'object', properties: [] } });
    expect(spec.input_schema).toEqual({ type: 'object', properties: {} });
  });

  it('renames the property keys Anthropic refuses, at any depth and in required, keeping the ones it accepts', () => {
    const long = 'k'.repeat(70);
    const parameters = {
      type: 'object',
      properties: {
        $top: { type: 'integer' },
        'filter[name]': { type: 'string' },
        ok: { type: 'object', properties: { 'sort by': { type: 'string' }, [long]: { type: 'string' } } },
        list: { type: 'array', items: { $ref: '#/$defs/Row' } },
      },
      required: ['$top', 'ok'],
      $defs: { Row: { type: 'object', properties: { '@id': { type: 'string' } }, required: ['@id'] } },
    };
    const { schema, notes } = toAnthropicInputSchema(deepFreeze(parameters));
    const top = anthropicKey('$top');
    expect(top).toMatch(/^_top_[0-9a-f]{8}$/);
    expect(anthropicKey(long)).toHaveLength(64);
    expect(Object.keys(schema.properties as object)).toEqual([top, anthropicKey('filter[name]'), 'ok', 'list']);
    expect(schema.required).toEqual([top, 'ok']);
    expect(Object.keys((schema.properties as Record<string, { properties: object }>).ok.properties)).toEqual([
      anthropicKey('sort by'),
      anthropicKey(long),
    ]);
    expect((schema.$defs as Record<string, { required: string[] }>).Row.required).toEqual([anthropicKey('@id')]);
    expect(anthropicSpecViolations({ name: 'q', description: 'q', input_schema: schema })).toEqual([]);
    const renamed = (pointer: string, name: string) =>
      `${pointer}: key sent as "${anthropicKey(name)}", as Anthropic refuses property keys outside ` +
      '^[a-zA-Z0-9_.-]{1,64}$ (the gateway maps it back)';
    expect(notes).toEqual([
      renamed('#/properties/$top', '$top'),
      renamed('#/properties/filter[name]', 'filter[name]'),
      renamed('#/properties/ok/properties/sort by', 'sort by'),
      renamed(`#/properties/ok/properties/${long}`, long),
      renamed('#/$defs/Row/properties/@id', '@id'),
    ]);
  });

  it('sends names that differ only in half a surrogate pair (which UTF-8 writes alike) as keys of their own', () => {
    const names = ['a\uD800', 'a\uDC00', 'a\uFFFD'];
    const parameters = { type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])) };
    const sent = toAnthropicInputSchema(parameters).schema as { properties: Record<string, unknown> };
    expect(Object.keys(sent.properties).sort()).toEqual(names.map(anthropicKey).sort());
    expect(new Set(names.map(anthropicKey)).size).toBe(3);
  });

  it('keeps a required name that is no property as it is when it renames the keys beside it', () => {
    const parameters = deepFreeze({
      type: 'object',
      properties: {
        $top: { type: 'integer' },
        q: { type: 'object', properties: { 'filter[id]': { type: 'string' } }, required: ['filter[id]', 'missing'] },
      },
      required: ['$top', 'ghost', anthropicKey('$top')],
    });
    const spec = toAnthropicToolSpec({ name: 'list', description: 'd', parameters });
    expect(spec.input_schema).toMatchObject({
      required: [anthropicKey('$top'), 'ghost'],
      properties: { q: { required: [anthropicKey('filter[id]'), 'missing'] } },
    });
    expect(anthropicSpecViolations(spec)).toEqual([]);
  });

  it('points the $refs that pass through a renamed key at the renamed key, so they still resolve', () => {
    const parameters = {
      type: 'object',
      properties: {
        $top: { type: 'integer', minimum: 1 },
        'ship to': { type: 'object', properties: { 'zip code': { type: 'string' } } },
        'bill to': { $ref: '#/properties/ship%20to' },
        limit: { $ref: '#/properties/$top' },
        zip: { $ref: '#/properties/ship to/properties/zip code' },
        properties: { type: 'object', properties: { 'a~b': { type: 'string' } } },
        nested: { $ref: '#/properties/properties/properties/a~0b' },
        row: { $ref: '#/$defs/Row' },
        rows: { type: 'array', items: { type: 'object', properties: { 'row id': { type: 'string' } } } },
        firstId: { $ref: '#/properties/rows/items/properties/row%20id' },
        anyId: { anyOf: [{ type: 'object', properties: { '@id': { type: 'string' } } }] },
        otherId: { $ref: '#/properties/anyId/anyOf/0/properties/@id' },
      },
      $defs: { Row: { type: 'object', properties: { 'row id': { type: 'string' } } } },
    };
    const { schema } = toAnthropicInputSchema(deepFreeze(parameters));
    const properties = schema.properties as Record<string, { $ref?: string }>;
    expect(properties[anthropicKey('bill to')].$ref).toBe(`#/properties/${anthropicKey('ship to')}`);
    expect(properties.limit.$ref).toBe(`#/properties/${anthropicKey('$top')}`);
    expect(properties.zip.$ref).toBe(`#/properties/${anthropicKey('ship to')}/properties/${anthropicKey('zip code')}`);
    expect(properties.nested.$ref).toBe(`#/properties/properties/properties/${anthropicKey('a~b')}`);
    expect(properties.row.$ref).toBe('#/$defs/Row');
    expect(properties.firstId.$ref).toBe(`#/properties/rows/items/properties/${anthropicKey('row id')}`);
    expect(properties.otherId.$ref).toBe(`#/properties/anyId/anyOf/0/properties/${anthropicKey('@id')}`);
    expect(anthropicSpecViolations({ name: 'q', description: 'q', input_schema: schema })).toEqual([]);
  });
});
