import { cpuTimedUnder } from '@test/support/cpu-time';
import { toPortableSchema } from './portable-json-schema.converter';
import { deepFreeze } from './model-formats.test-helpers';
import { openAiSpecViolations } from './openai-spec.validator';
import { anthropicSpecViolations } from './anthropic-spec.validator';

const asOpenAi = (parameters: unknown) => ({ type: 'function', function: { name: 't', description: 'd', parameters } });
const asAnthropic = (input_schema: unknown) => ({ name: 't', description: 'd', input_schema });

describe('toPortableSchema', () => {
  it('merges root allOf members into one object instead of hiding them behind properties: {}', () => {
    const { schema } = toPortableSchema(
      deepFreeze({
        type: 'object',
        allOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'integer' } } }],
      }),
    );
    expect(schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
      required: ['a'],
    });
  });

  it('lays a root oneOf out as one object, requiring what every member requires, and describes the choice', () => {
    const { schema, notes } = toPortableSchema({
      type: 'object',
      description: 'Open.',
      oneOf: [
        { properties: { url: { type: 'string' }, v: { type: 'boolean' } }, required: ['url', 'v'] },
        { properties: { path: { type: 'string' } }, required: ['path', 'v'] },
      ],
    });
    expect(schema).toEqual({
      type: 'object',
      description: 'Open.\nGive exactly one of these argument sets: (url, v) or (path, v).',
      properties: { url: { type: 'string' }, v: { type: 'boolean' }, path: { type: 'string' } },
      required: ['v'],
    });
    expect(notes).toEqual([
      '#: root oneOf of 2 alternatives laid out as one object, as OpenAI and Anthropic refuse a union at the root: ' +
        'the model reads which arguments go together in the description only',
    ]);
    expect(openAiSpecViolations(asOpenAi(schema))).toEqual([]);
    expect(anthropicSpecViolations(asAnthropic(schema))).toEqual([]);
  });

  it('keeps the keys of a root union alternative that is a map allowed beside the laid-out properties', () => {
    const { schema, notes } = toPortableSchema({
      type: 'object',
      anyOf: [
        { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        { type: 'object', additionalProperties: { type: 'string' } },
        { type: 'object', patternProperties: { '^x-': { type: 'integer' } } },
      ],
    });
    expect(schema).toEqual({
      type: 'object',
      description: 'Give at least one of these argument sets: (id) or (a map of other keys) or (a map of other keys).',
      properties: { id: { type: 'string' } },
      additionalProperties: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    });
    expect(notes).toEqual([
      expect.stringContaining('#: root anyOf of 3 alternatives laid out as one object'),
      '#/anyOf/1: alternative (a map) of the root anyOf: its keys are allowed beside the properties, with the values ' +
        'of any such alternative',
      '#/anyOf/2: alternative (a map) of the root anyOf: its keys are allowed beside the properties, with the values ' +
        'of any such alternative',
    ]);
    expect(openAiSpecViolations(asOpenAi(schema))).toEqual([]);
    expect(anthropicSpecViolations(asAnthropic(schema))).toEqual([]);
    // A root that closes itself (additionalProperties: false) is left closed.
    const closed = toPortableSchema({
      type: 'object',
      additionalProperties: false,
      anyOf: [{ properties: { id: { type: 'string' } } }, { additionalProperties: true }],
    }).schema;
    expect(closed.additionalProperties).toBe(false);
  });

  it('gives a property the members of a root union define differently every one of their schemas', () => {
    const { schema } = toPortableSchema(
      deepFreeze({
        type: 'object',
        oneOf: [
          {
            properties: { kind: { const: 'email' }, to: { type: 'string' }, urgent: { type: 'boolean' } },
            required: ['kind', 'to'],
          },
          {
            properties: { kind: { const: 'sms' }, to: { type: 'string' }, urgent: { type: 'boolean' } },
            required: ['kind', 'to'],
          },
          { properties: { kind: { const: 'fax' }, to: { type: 'integer' } }, required: ['kind', 'to'] },
        ],
      }),
    );
    expect(schema.properties).toEqual({
      kind: { anyOf: [{ const: 'email' }, { const: 'sms' }, { const: 'fax' }] },
      to: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      urgent: { type: 'boolean' },
    });
    expect(schema.required).toEqual(['kind', 'to']);
    expect(openAiSpecViolations(asOpenAi(schema))).toEqual([]);
    expect(anthropicSpecViolations(asAnthropic(schema))).toEqual([]);
  });

  it('resolves a root $ref and keeps the definitions the properties still point to', () => {
    const { schema } = toPortableSchema({
      type: 'object',
      $ref: '#/$defs/In',
      $defs: { In: { properties: { x: { $ref: '#/$defs/X' } } }, X: { type: 'string' } },
    });
    expect(schema.properties).toEqual({ x: { $ref: '#/$defs/X' } });
    expect(openAiSpecViolations(asOpenAi(schema))).toEqual([]);
  });

  it('turns a draft-07 tuple into items of its alternatives with the length kept', () => {
    const { schema } = toPortableSchema({
      type: 'object',
      properties: { p: { type: 'array', items: [{ type: 'number' }, { type: 'string' }], additionalItems: false } },
    });
    expect(schema.properties).toEqual({
      p: {
        type: 'array',
        items: { anyOf: [{ type: 'number' }, { type: 'string' }] },
        maxItems: 2,
        description: 'Positions: 1: number, 2: string.',
      },
    });
  });

  it('gives arrays without items items: {} and turns boolean property schemas into objects', () => {
    const { schema } = toPortableSchema({
      type: 'object',
      properties: { a: { type: ['array', 'null'] }, b: true, c: false },
    });
    expect(schema.properties).toEqual({ a: { type: ['array', 'null'], items: {} }, b: {}, c: { not: {} } });
    expect(openAiSpecViolations(asOpenAi(schema))).toEqual([]);
  });

  it('drops $schema and root keywords OpenAI refuses at the top level', () => {
    const { schema, notes } = toPortableSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {},
      not: { required: ['x'] },
    });
    expect(schema).toEqual({ type: 'object', properties: {} });
    expect(notes).toEqual([
      '#/not: dropped, as OpenAI and Anthropic refuse it at the root (the gateway still checks it on each call)',
    ]);
  });

  it.each([
    ['allOf back to the root', { type: 'object', properties: { q: { type: 'string' } }, allOf: [{ $ref: '#' }] }],
    [
      'a root $ref into definitions that refer to each other',
      {
        type: 'object',
        properties: { q: { type: 'string' } },
        $ref: '#/$defs/A',
        $defs: { A: { allOf: [{ $ref: '#/$defs/B' }] }, B: { allOf: [{ $ref: '#/$defs/A' }] } },
      },
    ],
  ])('merges %s once instead of looping (a row stored before the registry refused such schemas)', (_label, source) => {
    const { schema } = toPortableSchema(source);
    expect(schema.properties).toEqual({ q: { type: 'string' } });
    expect(openAiSpecViolations(asOpenAi(schema))).toEqual([]);
  });

  it.each([
    [
      'a root anyOf member (zod-to-json-schema writes these for a reused schema)',
      {
        type: 'object',
        anyOf: [
          { properties: { kind: { const: 'a' }, to: { type: 'string', minLength: 2 } }, required: ['kind'] },
          { properties: { kind: { const: 'b' }, cc: { $ref: '#/anyOf/0/properties/to' } }, required: ['kind'] },
        ],
      },
      'cc',
      { type: 'string', minLength: 2 },
    ],
    [
      'a root allOf member',
      {
        type: 'object',
        allOf: [{ properties: { a: { type: 'integer', minimum: 1 } } }],
        properties: { b: { $ref: '#/allOf/0/properties/a', description: 'Like a.' } },
      },
      'b',
      { type: 'integer', minimum: 1, description: 'Like a.' },
    ],
    [
      'a position of a draft-07 tuple',
      {
        type: 'object',
        properties: {
          t: { type: 'array', items: [{ type: 'string' }, { type: 'integer', maximum: 9 }] },
          u: { $ref: '#/properties/t/items/1' },
        },
      },
      'u',
      { type: 'integer', maximum: 9 },
    ],
    [
      'a prefixItems position holding an array without items',
      {
        type: 'object',
        properties: {
          t: { type: 'array', prefixItems: [{ type: 'array' }] },
          u: { $ref: '#/properties/t/prefixItems/0' },
        },
      },
      'u',
      { type: 'array', items: {} },
    ],
  ])('inlines a $ref into %s, which the rewrite moved, so it still resolves', (_label, source, property, inlined) => {
    const { schema } = toPortableSchema(deepFreeze(source));
    expect((schema.properties as Record<string, unknown>)[property]).toEqual(inlined);
    expect(openAiSpecViolations(asOpenAi(schema))).toEqual([]);
    expect(anthropicSpecViolations(asAnthropic(schema))).toEqual([]);
  });

  it('stops inlining, quickly, tuple positions that refer to each other and grow six-fold at every round', () => {
    const positions = Array.from({ length: 30 }, (_, i) =>
      i === 29
        ? { type: 'string' }
        : {
            type: 'object',
            properties: Object.fromEntries(
              ['a', 'b', 'c', 'd', 'e', 'f'].map((k) => [k, { $ref: `#/properties/t/items/${i + 1}` }]),
            ),
          },
    );
    const { value, cpuMs } = cpuTimedUnder(2000, () =>
      toPortableSchema({ type: 'object', properties: { t: { type: 'array', items: positions } } }),
    );
    expect(cpuMs).toBeLessThan(2000);
    expect(JSON.stringify(value.schema).length).toBeLessThan(5_000_000);
  });
});
