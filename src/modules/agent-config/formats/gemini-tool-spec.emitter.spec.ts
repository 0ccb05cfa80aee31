import { emitGeminiToolSpec, toGeminiToolSpec } from './gemini-tool-spec.emitter';
import { deepFreeze, geminiViolations } from './model-formats.test-helpers';
import { GEMINI_OBJECT_AS_TEXT_NOTE } from './gemini-schema-draft.finalizer';
import { GEMINI_ROOT_MAP_PROPERTY } from './gemini-root-map';

describe('toGeminiToolSpec', () => {
  it('emits {name, description, parameters} with the schema in the Gemini subset', () => {
    const parameters = deepFreeze({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: {
        city: { type: 'string', description: 'City name' },
        unit: { enum: ['c', 'f'], default: 'c' },
        days: { type: ['integer', 'null'], minimum: 1, maximum: 7 },
        at: { $ref: '#/definitions/When' },
      },
      required: ['city'],
      definitions: { When: { type: 'string', format: 'date-time' } },
    });
    expect(toGeminiToolSpec({ name: 'weather', description: 'Forecast.', parameters })).toEqual({
      name: 'weather',
      description: 'Forecast.',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'City name' },
          unit: { type: 'string', enum: ['c', 'f'] },
          days: { type: 'integer', minimum: 1, maximum: 7, nullable: true },
          at: { type: 'string', format: 'date-time' },
        },
        required: ['city'],
      },
    });
  });

  it('omits parameters for a tool that takes none', () => {
    for (const parameters of [
      { type: 'object', additionalProperties: false },
      { type: 'object' },
      { type: ['string', 'object'], additionalProperties: { type: 'string' } },
    ])
      expect(toGeminiToolSpec({ name: 'now', description: 'Time.', parameters })).not.toHaveProperty(
        'parameters.properties.arguments_json',
      );
    expect(toGeminiToolSpec({ name: 'now', description: 'Time.', parameters: {} })).toEqual({
      name: 'now',
      description: 'Time.',
    });
    const empty = toGeminiToolSpec({
      name: 'now',
      description: 'Time.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    });
    expect(empty).not.toHaveProperty('parameters');
  });

  it('lets the model pass the arguments of a tool whose root is a map, as JSON text in one property', () => {
    for (const parameters of [
      { type: 'object', description: 'Variables by name.', additionalProperties: { type: 'string' } },
      { type: 'object', properties: {}, additionalProperties: true },
      { type: 'object', patternProperties: { '^[A-Z_]+$': { type: 'string' } } },
      { type: ['object'], additionalProperties: { type: 'integer' } },
      { type: ['object', 'null'], additionalProperties: { type: 'integer' } },
      {
        $ref: '#/definitions/Labels',
        definitions: { Labels: { type: 'object', additionalProperties: { type: 'string' } } },
        $schema: 'http://json-schema.org/draft-07/schema#',
      },
    ]) {
      const spec = toGeminiToolSpec({
        name: 'set_env',
        description: 'Set variables.',
        parameters: deepFreeze(parameters),
      });
      expect(spec.parameters).toEqual({
        type: 'object',
        properties: {
          [GEMINI_ROOT_MAP_PROPERTY]: {
            type: 'string',
            description: expect.stringContaining(GEMINI_OBJECT_AS_TEXT_NOTE),
          },
        },
        required: [GEMINI_ROOT_MAP_PROPERTY],
      });
      expect(geminiViolations(spec.parameters)).toEqual([]);
    }
    const described = toGeminiToolSpec({
      name: 'set_env',
      description: 'Set variables.',
      parameters: { type: 'object', description: 'Variables by name.', additionalProperties: { type: 'string' } },
    });
    expect(described.parameters!.properties).toMatchObject({
      [GEMINI_ROOT_MAP_PROPERTY]: { description: `Variables by name.\n${GEMINI_OBJECT_AS_TEXT_NOTE}` },
    });
  });

  it('inlines a root $ref and keeps the root an object', () => {
    const spec = toGeminiToolSpec({
      name: 'create',
      description: 'Create.',
      parameters: deepFreeze({
        $ref: '#/$defs/Input',
        $defs: { Input: { properties: { id: { type: 'string' } }, required: ['id'] } },
      }),
    });
    expect(spec.parameters).toEqual({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] });
  });

  it('lays a root union of objects out as one object, requiring only what every member requires', () => {
    const spec = toGeminiToolSpec({
      name: 'lookup',
      description: 'By id or by email.',
      parameters: {
        properties: { verbose: { type: 'boolean' } },
        oneOf: [
          { properties: { id: { type: 'string' }, scope: { type: 'string' } }, required: ['id', 'scope'] },
          { properties: { email: { type: 'string' }, scope: { type: 'integer' } }, required: ['email', 'scope'] },
        ],
      },
    });
    expect(spec.parameters).toEqual({
      type: 'object',
      properties: {
        verbose: { type: 'boolean' },
        id: { type: 'string' },
        scope: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        email: { type: 'string' },
      },
      required: ['scope'],
    });
    expect(geminiViolations(spec.parameters)).toEqual([]);
  });

  it('keeps every value of a discriminator the members of a root union set differently', () => {
    const spec = toGeminiToolSpec({
      name: 'notify',
      description: 'By email or by SMS.',
      parameters: deepFreeze({
        type: 'object',
        oneOf: [
          { properties: { kind: { const: 'email' }, to: { type: 'string' } }, required: ['kind', 'to'] },
          { properties: { kind: { const: 'sms' }, to: { type: 'string' } }, required: ['kind', 'to'] },
        ],
      }),
    });
    expect(spec.parameters).toEqual({
      type: 'object',
      properties: {
        kind: {
          anyOf: [
            { type: 'string', enum: ['email'] },
            { type: 'string', enum: ['sms'] },
          ],
        },
        to: { type: 'string' },
      },
      required: ['kind', 'to'],
    });
    expect(geminiViolations(spec.parameters)).toEqual([]);
  });

  it('warns of a root union laid out as one object, naming each alternative it drops', () => {
    const emitted = emitGeminiToolSpec({
      name: 'label',
      description: 'By id, or labels by name.',
      parameters: deepFreeze({
        type: 'object',
        anyOf: [
          { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          { type: 'object', additionalProperties: { type: 'string' } },
        ],
      }),
    });
    expect(emitted.spec.parameters).toEqual({ type: 'object', properties: { id: { type: 'string' } } });
    expect(emitted.warnings).toEqual([
      'root union of 2 alternatives laid out as one object: Gemini is not told which arguments go together',
      'root anyOf alternative 2 (a map) dropped: Gemini cannot declare it, so the model cannot send it',
    ]);
    const onlyMaps = emitGeminiToolSpec({
      name: 'tag',
      description: 'Tags.',
      parameters: {
        oneOf: [{ type: 'object', additionalProperties: true }, { $ref: '#/$defs/Headers' }, { type: 'object' }],
        $defs: { Headers: { type: 'object', patternProperties: { '^x-': { type: 'string' } } } },
      },
    });
    expect(onlyMaps.spec).not.toHaveProperty('parameters');
    expect(onlyMaps.warnings).toEqual([
      expect.stringContaining('laid out as one object'),
      expect.stringContaining('root oneOf alternative 1 (a map) dropped'),
      expect.stringContaining('root oneOf alternative 2 (a map) dropped'),
      expect.stringContaining('root oneOf alternative 3 (a free-form object) dropped'),
    ]);
  });

  it("drops no alternative that only constrains the root's properties, and names a second union Gemini cannot take", () => {
    const constraints = emitGeminiToolSpec({
      name: 'find',
      description: 'By a or by b.',
      parameters: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' } },
        anyOf: [{ required: ['a'] }, { required: ['b'] }, { type: 'null' }],
      },
    });
    expect(constraints.spec.parameters).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
    });
    expect(constraints.warnings).toEqual([expect.stringContaining('root union of 2 alternatives laid out')]);
    const two = emitGeminiToolSpec({
      name: 'find',
      description: 'Two unions.',
      parameters: {
        type: 'object',
        anyOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { type: 'string' } } }],
        oneOf: [{ properties: { c: { type: 'string' } } }, { properties: { d: { type: 'string' } } }],
      },
    });
    expect(two.spec.parameters).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
    });
    expect(two.warnings).toEqual([
      expect.stringContaining('laid out as one object'),
      "root oneOf dropped: Gemini takes one union, and the root's anyOf is the one kept",
    ]);
  });

  it('has no warnings for a schema Gemini takes as it is, or whose stand-ins the model can still fill', () => {
    for (const parameters of [
      { type: 'object', properties: { q: { type: 'string' } } },
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'object', properties: { meta: { type: 'object', additionalProperties: true } } },
    ])
      expect(emitGeminiToolSpec({ name: 't', description: 't', parameters }).warnings).toEqual([]);
  });

  it('drops nullable from the root', () => {
    const spec = toGeminiToolSpec({
      name: 'x',
      description: 'x',
      parameters: { type: ['object', 'null'], properties: { a: { type: 'string' } } },
    });
    expect(spec.parameters).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });
});
