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
          unit: { type: 'string', enum: ['c', 'f'], description: '(default: "c")' },
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
      '#: root union of 2 alternatives laid out as one object: Gemini is not told which arguments go together',
      '#/anyOf/1: alternative (a map) dropped: Gemini cannot declare it, so the model cannot send it',
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
      expect.stringContaining('#/oneOf/0: alternative (a map) dropped'),
      expect.stringContaining('#/oneOf/1: alternative (a map) dropped'),
      expect.stringContaining('#/oneOf/2: alternative (a free-form object) dropped'),
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
      '#/oneOf dropped: Gemini takes one union per schema, and #/anyOf is the one kept there',
    ]);
  });

  it('has no warnings for a schema Gemini takes as it is', () => {
    for (const parameters of [
      { type: 'object', properties: { q: { type: 'string' } } },
      { type: 'object', additionalProperties: false, properties: { q: { type: ['string', 'null'], const: 'x' } } },
      { type: 'object', properties: { at: { $ref: '#/$defs/At' } }, $defs: { At: { anyOf: [{ type: 'string' }] } } },
      { type: 'object', properties: { to: { anyOf: [{ type: 'object', properties: { id: {} } }, { type: 'null' }] } } },
    ]) {
      const emitted = emitGeminiToolSpec({ name: 't', description: 't', parameters });
      expect(emitted.warnings.filter((w) => !w.includes('#/properties/to/anyOf/0/properties/id'))).toEqual([]);
    }
  });

  describe('warnings below the root', () => {
    const emit = (parameters: Record<string, unknown>) =>
      emitGeminiToolSpec({ name: 't', description: 't', parameters: deepFreeze(parameters) });

    it('names a second union on one node, at any depth, by the pointers of the union dropped and the one kept', () => {
      const emitted = emit({
        type: 'object',
        properties: {
          target: {
            anyOf: [{ type: 'object', properties: { id: { type: 'string' } } }, { type: 'string' }],
            oneOf: [{ type: 'integer' }, { type: 'boolean' }],
          },
          list: {
            type: 'array',
            items: { properties: { v: { type: ['string', 'integer'], anyOf: [{ minLength: 1 }, { minimum: 0 }] } } },
          },
        },
      });
      expect(emitted.spec.parameters).toMatchObject({
        properties: { target: { anyOf: [{ type: 'object' }, { type: 'string' }] } },
      });
      expect(geminiViolations(emitted.spec.parameters)).toEqual([]);
      expect(emitted.warnings).toEqual([
        '#/properties/target/oneOf dropped: Gemini takes one union per schema, and #/properties/target/anyOf is the one kept there',
        '#/properties/list/items/properties/v/anyOf dropped: Gemini takes one union per schema, and #/properties/list/items/properties/v/type is the one kept there',
      ]);
    });

    it('names a union an allOf member or a ref target loses to another', () => {
      const emitted = emit({
        type: 'object',
        properties: {
          t: { allOf: [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, { $ref: '#/$defs/Flag' }] },
          u: { allOf: [{ properties: { x: { oneOf: [{ type: 'string' }, { type: 'integer' }] } } }] },
        },
        required: ['u'],
        $defs: { Flag: { anyOf: [{ type: 'number' }, { type: 'boolean' }] } },
      });
      expect(emitted.spec.parameters).toMatchObject({
        properties: { t: { anyOf: [{ type: 'number' }, { type: 'boolean' }] } },
      });
      expect(emitted.warnings).toEqual([
        '#/properties/t/allOf/0/anyOf dropped: Gemini takes one union per schema, and #/$defs/Flag/anyOf is the one kept there',
      ]);
    });

    it("names a tuple's positions by their pointer when a merge drops them for another union", () => {
      const emitted = emit({
        type: 'object',
        properties: {
          p: {
            allOf: [
              { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
              { items: { anyOf: [{ type: 'number' }, { type: 'boolean' }] } },
            ],
          },
        },
      });
      expect(emitted.warnings).toContain(
        '#/properties/p/allOf/0/prefixItems dropped: Gemini takes one union per schema, and #/properties/p/allOf/1/items/anyOf is the one kept there',
      );
    });

    it('lays out a union inside a root alternative, and names its alternatives it drops', () => {
      const emitted = emit({
        anyOf: [
          { anyOf: [{ properties: { a: { type: 'string' } } }, { type: 'object', additionalProperties: true }] },
          { properties: { c: { type: 'string' } } },
        ],
      });
      expect(emitted.spec.parameters).toEqual({
        type: 'object',
        properties: { a: { type: 'string' }, c: { type: 'string' } },
      });
      expect(emitted.warnings).toEqual([
        expect.stringContaining('#: root union of 2 alternatives laid out'),
        '#/anyOf/0/anyOf/1: alternative (a map) dropped: Gemini cannot declare it, so the model cannot send it',
      ]);
    });

    it('names each node sent as JSON text or reshaped, by its pointer', () => {
      const emitted = emit({
        type: 'object',
        properties: {
          meta: { type: 'object', additionalProperties: true },
          any: {},
          mixed: { enum: ['a', 1] },
          level: { type: 'integer', enum: [1, 2] },
          raw: { type: 'array' },
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
          box: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'integer' } },
          'a/b': { $ref: '#/$defs/Node' },
        },
        $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
      });
      expect(geminiViolations(emitted.spec.parameters)).toEqual([]);
      expect(emitted.warnings).toEqual([
        "#/properties/pair: a tuple sent as an array of any of its positions' schemas, in any order",
        '#/properties/box: the keys allowed beside its properties (additionalProperties, patternProperties) dropped: Gemini cannot declare them, so the model cannot send them',
        '#/properties/meta: an object without properties (a map, a free-form object, a recursion) sent as JSON text',
        '#/properties/any: a value of any type sent as JSON text',
        '#/properties/mixed: an enum of mixed types sent as a string enum of the values as text',
        '#/properties/level: its enum written into the description, as Gemini takes enums of strings only',
        '#/properties/raw/items: a value of any type sent as JSON text',
        '#/$defs/Node/properties/next: an object without properties (a map, a free-form object, a recursion) sent as JSON text',
      ]);
    });

    it('names each node whose keywords it moves into the description by its JSON pointer, with the keywords', () => {
      const emitted = emit({
        type: 'object',
        properties: {
          tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, default: [] },
          n: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.5 },
          url: { type: 'string', format: 'uri' },
          when: { type: 'string', format: 'date-time', minLength: 1 },
        },
      });
      expect(geminiViolations(emitted.spec.parameters)).toEqual([]);
      const moved = (pointer: string, keywords: string) =>
        `${pointer}: ${keywords} moved into the description, as Gemini does not take them there: the model reads ` +
        "them as text and Gemini no longer enforces them (the gateway still checks each call against the tool's own " +
        'schema)';
      expect(emitted.warnings).toEqual([
        moved('#/properties/tags', 'uniqueItems, default'),
        moved('#/properties/n', 'multipleOf, exclusiveMinimum'),
        '#/properties/url: format moved into the description, as Gemini does not take it there: the model reads it ' +
          "as text and Gemini no longer enforces it (the gateway still checks each call against the tool's own schema)",
      ]);
    });

    it('moves the keywords beside a list of types into the description too, and names them', () => {
      const emitted = emit({
        type: 'object',
        properties: { v: { type: ['string', 'integer'], description: 'V.', default: 'x', uniqueItems: true } },
      });
      expect(geminiViolations(emitted.spec.parameters)).toEqual([]);
      expect(emitted.spec.parameters?.properties).toEqual({
        v: { description: 'V.\n(default: "x"; uniqueItems: true)', anyOf: [{ type: 'string' }, { type: 'integer' }] },
      });
      expect(emitted.warnings).toEqual([
        '#/properties/v: default, uniqueItems moved into the description, as Gemini does not take them there: the ' +
          'model reads them as text and Gemini no longer enforces them (the gateway still checks each call against the ' +
          "tool's own schema)",
      ]);
    });

    it('names a map at the root, sent in its one property', () => {
      expect(emit({ type: 'object', additionalProperties: { type: 'string' } }).warnings).toEqual([
        `#: a map, sent as JSON text in its one property ${GEMINI_ROOT_MAP_PROPERTY}`,
      ]);
    });
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
