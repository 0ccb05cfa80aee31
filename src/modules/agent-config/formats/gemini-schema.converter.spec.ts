import { convertGeminiSchema, toGeminiSchema } from './gemini-schema.converter';
import { GEMINI_MAX_SCHEMA_NODES } from './gemini-schema.keywords';
import { MAX_SCHEMA_BYTES } from '@app/modules/tool-registry/tool-schema.compiler';
import { countSchemaNodes, deepFreeze, geminiViolations } from './model-formats.test-helpers';

const AS_JSON_TEXT = 'A JSON object, sent as JSON text (for example {"key": "value"}).';
const ANY_AS_TEXT = 'Any JSON value, sent as JSON text.';
/** Gemini refuses an object with no properties: the recursion placeholder is sent as JSON text. */
const RECURSIVE = { type: 'string', description: `(recursive)\n${AS_JSON_TEXT}` };
const ANY = { type: 'string', description: ANY_AS_TEXT };
const ADDRESS = {
  type: 'object',
  properties: { street: { type: 'string' }, zip: { type: 'string', nullable: true, pattern: '^\\d{5}$' } },
  required: ['street'],
};

/** Every rewrite at once: refs nested in arrays, recursion, const, null unions, type arrays, allOf... */
function nastySchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://example.test/nasty',
    $comment: 'nothing here is Gemini-safe',
    type: 'object',
    additionalProperties: false,
    $defs: {
      Address: {
        type: 'object',
        additionalProperties: false,
        properties: { street: { type: 'string' }, zip: { type: ['string', 'null'], pattern: '^\\d{5}$' } },
        required: ['street', 'ghost'],
      },
      Node: {
        type: 'object',
        properties: {
          value: { type: 'integer', format: 'int32' },
          children: { type: 'array', items: { $ref: '#/$defs/Node', description: 'a child' } },
        },
        required: ['value'],
      },
      Mode: { const: 'fast' },
    },
    definitions: { Legacy: { type: 'string', format: 'email', examples: ['a@b.c'], default: 'a@b.c' } },
    properties: {
      addresses: { type: 'array', items: { $ref: '#/$defs/Address' }, minItems: 1, uniqueItems: true },
      matrix: {
        type: 'array',
        items: { type: 'array', items: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }] } },
      },
      tree: { $ref: '#/$defs/Node' },
      mode: { $ref: '#/$defs/Mode' },
      legacy: { $ref: '#/definitions/Legacy' },
      pointer: { $ref: '#/properties/addresses/items' },
      note: { description: 'optional note', anyOf: [{ type: 'string', maxLength: 10 }, { type: 'null' }] },
      labels: {
        type: 'object',
        additionalProperties: { type: 'string' },
        patternProperties: { '^x-': { type: 'string' } },
        unevaluatedProperties: false,
      },
      extras: {
        type: 'object',
        properties: { on: { type: 'boolean' } },
        additionalProperties: { $ref: '#/$defs/Address' },
      },
      merged: {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { $ref: '#/$defs/Mode' } }, required: ['b'], additionalProperties: false },
        ],
      },
      level: { type: 'integer', enum: [1, 2, 3] },
      choice: { oneOf: [{ type: 'string' }, { type: 'integer', minimum: 0 }] },
      conditional: {
        type: 'string',
        if: { minLength: 2 },
        then: { $ref: '#/$defs/Mode' },
        else: { const: 'x' },
        not: { const: 'y' },
        contentMediaType: 'text/plain',
        readOnly: true,
        writeOnly: false,
        dependentRequired: { a: ['b'] },
        $comment: 'c',
      },
      self: { $ref: '#' },
    },
    required: ['addresses', 'tree', 'nonexistent'],
  };
}

describe('toGeminiSchema', () => {
  describe('on a schema using every rewrite at once', () => {
    const input = deepFreeze(nastySchema());
    const output = toGeminiSchema(input);

    it('leaves no keyword outside the Gemini subset at any depth', () => {
      expect(geminiViolations(output)).toEqual([]);
      for (const keyword of [
        '$schema',
        '$id',
        '$defs',
        'definitions',
        '$ref',
        'additionalProperties',
        'const',
        'oneOf',
        'allOf',
        'default',
        'examples',
      ]) {
        expect(JSON.stringify(output)).not.toContain(`"${keyword}"`);
      }
    });

    it('does not mutate the (frozen) input and shares no object with it', () => {
      expect(input).toEqual(nastySchema());
      const outputObjects = new Set<unknown>();
      const collect = (v: unknown): void => {
        if (typeof v === 'object' && v !== null) {
          outputObjects.add(v);
          Object.values(v).forEach(collect);
        }
      };
      collect(output);
      const shared: unknown[] = [];
      const check = (v: unknown): void => {
        if (typeof v === 'object' && v !== null) {
          if (outputObjects.has(v)) shared.push(v);
          Object.values(v).forEach(check);
        }
      };
      check(input);
      expect(shared).toEqual([]);
    });

    it('inlines $defs refs nested in arrays, drops additionalProperties and keeps only existing required names', () => {
      const properties = output.properties as Record<string, unknown>;
      expect(properties.addresses).toEqual({
        type: 'array',
        description: '(uniqueItems: true)',
        minItems: 1,
        items: ADDRESS,
      });
      expect(properties.matrix).toEqual({
        type: 'array',
        items: { type: 'array', items: { ...ADDRESS, nullable: true } },
      });
      expect(output.required).toEqual(['addresses', 'tree']);
      expect(output.type).toBe('object');
    });

    it('cuts a recursive ref after one expansion with the (recursive) placeholder', () => {
      expect((output.properties as Record<string, unknown>).tree).toEqual({
        type: 'object',
        properties: {
          value: { type: 'integer', format: 'int32' },
          children: { type: 'array', items: RECURSIVE },
        },
        required: ['value'],
      });
      expect((output.properties as Record<string, unknown>).self).toEqual(RECURSIVE);
    });

    it('rewrites const, definitions refs, JSON-pointer refs, null unions and oneOf', () => {
      const properties = output.properties as Record<string, unknown>;
      expect(properties.mode).toEqual({ type: 'string', enum: ['fast'] });
      expect(properties.legacy).toEqual({
        type: 'string',
        description: '(examples: ["a@b.c"]; default: "a@b.c"; format: email)',
      });
      expect(properties.pointer).toEqual(ADDRESS);
      expect(properties.note).toEqual({ type: 'string', maxLength: 10, nullable: true, description: 'optional note' });
      expect(properties.choice).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer', minimum: 0 }] });
    });

    it('sends maps as JSON text and writes the keywords Gemini rejects into the description', () => {
      const properties = output.properties as Record<string, unknown>;
      expect(properties.labels).toEqual({
        type: 'string',
        description: `(unevaluatedProperties: false)\n${AS_JSON_TEXT}`,
      });
      expect(properties.extras).toEqual({ type: 'object', properties: { on: { type: 'boolean' } } });
      expect(properties.conditional).toEqual({
        type: 'string',
        description:
          '(if: {"minLength":2}; then: {"$ref":"#/$defs/Mode"}; else: {"const":"x"}; not: {"const":"y"}; ' +
          'dependentRequired: {"a":["b"]})',
      });
    });

    it('merges allOf objects, uniting properties and required', () => {
      expect((output.properties as Record<string, unknown>).merged).toEqual({
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string', enum: ['fast'] } },
        required: ['a', 'b'],
      });
    });

    it('moves a non-string enum into the description and keeps the declared type', () => {
      expect((output.properties as Record<string, unknown>).level).toEqual({
        type: 'integer',
        description: 'Allowed values: 1, 2, 3.',
      });
    });
  });

  describe('nullable', () => {
    it('turns a [type, "null"] array into the type plus nullable', () => {
      expect(toGeminiSchema({ type: ['integer', 'null'], minimum: 1 })).toEqual({
        type: 'integer',
        minimum: 1,
        nullable: true,
      });
    });

    it('turns oneOf [X, null] into X plus nullable, the outer description winning', () => {
      expect(
        toGeminiSchema({ description: 'outer', oneOf: [{ type: 'null' }, { type: 'string', description: 'inner' }] }),
      ).toEqual({ type: 'string', description: 'outer', nullable: true });
    });

    it('keeps anyOf of several real members and lifts null out as nullable', () => {
      expect(toGeminiSchema({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] })).toEqual({
        anyOf: [{ type: 'string' }, { type: 'number' }],
        nullable: true,
      });
    });

    it('treats null among enum values, and const null, as nullable', () => {
      expect(toGeminiSchema({ enum: ['a', null] })).toEqual({ type: 'string', enum: ['a'], nullable: true });
      expect(toGeminiSchema({ type: 'string', const: null })).toEqual({ type: 'string', nullable: true });
    });

    it('keeps the properties of a schema that also has a union, its alternatives finalized as roots to lay out', () => {
      expect(
        toGeminiSchema({
          properties: { a: { type: 'string' } },
          oneOf: [{ type: 'object' }, { type: 'object', nullable: true }],
        }),
      ).toEqual({
        type: 'object',
        properties: { a: { type: 'string' } },
        anyOf: [{ type: 'object' }, { type: 'object', nullable: true }],
      });
      expect(
        toGeminiSchema({ properties: { b: { oneOf: [{ type: 'object' }, { type: 'string' }] } } }).properties,
      ).toEqual({ b: { anyOf: [{ type: 'string', description: AS_JSON_TEXT }, { type: 'string' }] } });
    });

    it('keeps an OpenAPI nullable: true', () => {
      expect(toGeminiSchema({ type: 'string', nullable: true })).toEqual({ type: 'string', nullable: true });
    });
  });

  describe('type arrays and inference', () => {
    it('splits several types into an anyOf, each member keeping only its own keywords', () => {
      expect(
        toGeminiSchema({ type: ['string', 'integer', 'null'], description: 'id', minLength: 2, minimum: 0 }),
      ).toEqual({
        description: 'id',
        nullable: true,
        anyOf: [
          { type: 'string', minLength: 2 },
          { type: 'integer', minimum: 0 },
        ],
      });
    });

    it('gives a type-less schema with properties type object, and infers array, string and number', () => {
      expect(toGeminiSchema({ properties: { a: { items: { minLength: 1 } } } })).toEqual({
        type: 'object',
        properties: { a: { type: 'array', items: { type: 'string', minLength: 1 } } },
      });
      expect(toGeminiSchema({ maximum: 5 })).toEqual({ type: 'number', maximum: 5 });
    });

    it('infers the type of a const from its value', () => {
      expect(toGeminiSchema({ const: 'on' })).toEqual({ type: 'string', enum: ['on'] });
      expect(toGeminiSchema({ const: true })).toEqual({ type: 'boolean', description: 'Allowed values: true.' });
      expect(toGeminiSchema({ const: 2 })).toEqual({ type: 'integer', description: 'Allowed values: 2.' });
    });

    it('gives an array that has no items (or items of any type) items sent as JSON text', () => {
      expect(toGeminiSchema({ type: 'array', items: true })).toEqual({ type: 'array', items: ANY });
      expect(toGeminiSchema({ type: 'array', maxItems: 3 })).toEqual({ type: 'array', maxItems: 3, items: ANY });
    });

    it('turns a tuple into items of its alternatives, its positions told in the description and its length kept', () => {
      expect(
        toGeminiSchema({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false }),
      ).toEqual({
        type: 'array',
        description: '(positions: 1: string, 2: integer)',
        maxItems: 2,
        items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      });
      expect(
        toGeminiSchema({ type: 'array', items: [{ type: 'number' }], additionalItems: { type: 'string' } }),
      ).toEqual({
        type: 'array',
        description: '(positions: 1: number)',
        items: { anyOf: [{ type: 'number' }, { type: 'string' }] },
      });
    });
  });

  describe('enum and format', () => {
    it('stringifies the enum values of a string schema and removes duplicates', () => {
      expect(toGeminiSchema({ type: 'string', enum: ['1', 1, true, 'x'] })).toEqual({
        type: 'string',
        enum: ['1', 'true', 'x'],
      });
    });

    it('describes a mixed, type-less enum instead of guessing a type', () => {
      expect(toGeminiSchema({ description: 'Mode.', enum: ['a', 1] })).toEqual({
        description: 'Mode.\nAllowed values: "a", 1.',
      });
    });

    it('sends a mixed enum below the root as a string enum of the values as text', () => {
      const output = toGeminiSchema({ type: 'object', properties: { level: { enum: [1, 'high', true] } } });
      expect(output.properties).toEqual({
        level: { type: 'string', format: 'enum', enum: ['1', 'high', 'true'], description: 'Send the value as text.' },
      });
      expect(geminiViolations(output)).toEqual([]);
    });

    it('writes an enum holding the empty string into the description, as Gemini refuses one in an enum', () => {
      const { schema, warnings } = convertGeminiSchema({
        type: 'object',
        properties: {
          mode: { type: 'string', enum: ['fast', ''] },
          clear: { const: '' },
          level: { enum: [1, ''] },
        },
      });
      expect(schema.properties).toEqual({
        mode: { type: 'string', description: 'Allowed values: "fast", "".' },
        clear: { type: 'string', description: 'Allowed values: "".' },
        level: { type: 'string', description: 'Allowed values: 1, "". Send the value as text.' },
      });
      expect(geminiViolations(schema)).toEqual([]);
      expect(warnings).toEqual([
        '#/properties/mode: its enum written into the description, as Gemini refuses an empty string among enum values',
        '#/properties/clear: its enum written into the description, as Gemini refuses an empty string among enum values',
        '#/properties/level: an enum of mixed types sent as a string, its values in the description, as Gemini refuses an empty string among enum values',
      ]);
    });

    it('keeps only the formats Gemini documents for the type, and writes any other into the description', () => {
      expect(toGeminiSchema({ type: 'string', format: 'date-time' })).toEqual({ type: 'string', format: 'date-time' });
      expect(toGeminiSchema({ type: 'string', format: 'uuid' })).toEqual({
        type: 'string',
        description: '(format: uuid)',
      });
      expect(toGeminiSchema({ type: 'integer', format: 'int64' })).toEqual({ type: 'integer', format: 'int64' });
      expect(toGeminiSchema({ type: 'number', format: 'int64', description: 'n' })).toEqual({
        type: 'number',
        description: 'n\n(format: int64)',
      });
      expect(toGeminiSchema({ type: 'number', format: 'double' })).toEqual({ type: 'number', format: 'double' });
    });

    it('drops keywords that do not apply to the type', () => {
      expect(
        toGeminiSchema({ type: 'boolean', minLength: 1, maximum: 3, items: { type: 'string' }, properties: {} }),
      ).toEqual({
        type: 'boolean',
      });
    });
  });

  describe('bounds', () => {
    it('turns exclusive bounds of an integer into the next integer in', () => {
      expect(toGeminiSchema({ type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10.5, maximum: 20 })).toEqual({
        type: 'integer',
        minimum: 1,
        maximum: 10,
      });
    });

    it('turns exclusive bounds of a number into inclusive ones, telling the exclusive bound in the description', () => {
      expect(toGeminiSchema({ type: 'number', exclusiveMinimum: 0 })).toEqual({
        type: 'number',
        minimum: 0,
        description: '(exclusiveMinimum: 0)',
      });
    });

    it('keeps every pattern and format of an allOf, the ones Gemini has one place for told in the description', () => {
      expect(
        toGeminiSchema({
          type: 'string',
          allOf: [
            { pattern: '^[a-z]+$', format: 'date-time' },
            { pattern: '^.{3,}$' },
            { pattern: '^.{3,}$', format: 'email' },
          ],
        }),
      ).toEqual({
        type: 'string',
        pattern: '^.{3,}$',
        description: '(pattern: "^[a-z]+$"; format: date-time; format: email)',
      });
    });

    it("keeps the constraints of a ref target or an allOf member in the description beside the node's own", () => {
      expect(
        toGeminiSchema({
          type: 'object',
          properties: {
            tags: { $ref: '#/$defs/Tags', description: 'Tags.' },
            step: {
              allOf: [
                { type: 'number', multipleOf: 0.5 },
                { description: 'Step.', exclusiveMinimum: 0 },
              ],
            },
          },
          $defs: { Tags: { type: 'array', items: { type: 'string', format: 'uri' }, uniqueItems: true } },
        }).properties,
      ).toEqual({
        tags: {
          type: 'array',
          description: 'Tags.\n(uniqueItems: true)',
          items: { type: 'string', description: '(format: uri)' },
        },
        step: { type: 'number', minimum: 0, description: 'Step.\n(multipleOf: 0.5; exclusiveMinimum: 0)' },
      });
    });

    it('writes the constraints Gemini cannot take into the description, and drops annotations', () => {
      expect(
        toGeminiSchema({
          type: 'object',
          properties: {
            step: { type: 'number', multipleOf: 0.5, description: 'Step.' },
            tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
            box: { type: 'object', properties: { a: { type: 'string' } }, minProperties: 1, 'x-order': 2 },
            old: { type: 'string', deprecated: true, readOnly: true, $comment: 'c' },
          },
        }).properties,
      ).toEqual({
        step: { type: 'number', description: 'Step.\n(multipleOf: 0.5)' },
        tags: { type: 'array', description: '(uniqueItems: true)', items: { type: 'string' } },
        box: { type: 'object', description: '(minProperties: 1)', properties: { a: { type: 'string' } } },
        old: { type: 'string' },
      });
    });

    it('takes the stricter bound when allOf members disagree', () => {
      expect(
        toGeminiSchema({
          allOf: [
            { type: 'string', maxLength: 10 },
            { minLength: 2, maxLength: 5 },
          ],
        }),
      ).toEqual({
        type: 'string',
        minLength: 2,
        maxLength: 5,
      });
    });
  });

  describe('refs', () => {
    it('merges sibling keywords over the ref target, the siblings winning', () => {
      const schema = {
        $defs: { Id: { type: 'string', description: 'An id', minLength: 3 } },
        properties: { id: { $ref: '#/$defs/Id', description: 'The order id', maxLength: 9 } },
      };
      expect(toGeminiSchema(schema)).toEqual({
        type: 'object',
        properties: { id: { type: 'string', description: 'The order id', minLength: 3, maxLength: 9 } },
      });
    });

    it('resolves escaped JSON pointers and anchors', () => {
      const schema = {
        $defs: { 'a/b': { type: 'integer' }, 'c~d': { type: 'boolean' }, named: { $anchor: 'thing', type: 'number' } },
        properties: {
          slash: { $ref: '#/$defs/a~1b' },
          tilde: { $ref: '#/$defs/c~0d' },
          anchor: { $ref: '#thing' },
          encoded: { $ref: '#/$defs/a~1b'.replace('a', '%61') },
        },
      };
      expect(toGeminiSchema(schema).properties).toEqual({
        slash: { type: 'integer' },
        tilde: { type: 'boolean' },
        anchor: { type: 'number' },
        encoded: { type: 'integer' },
      });
    });

    it('keeps only the siblings of a ref it cannot resolve', () => {
      expect(
        toGeminiSchema({
          properties: { a: { $ref: 'https://x.test/s.json', description: 'remote' }, b: { $ref: '#/nope' } },
        }),
      ).toEqual({
        type: 'object',
        properties: { a: { type: 'string', description: `remote\n${ANY_AS_TEXT}` }, b: ANY },
      });
    });

    it('cuts mutual recursion between definitions', () => {
      const schema = {
        $defs: {
          A: { type: 'object', properties: { b: { $ref: '#/$defs/B' } } },
          B: { type: 'object', properties: { a: { $ref: '#/$defs/A' } } },
        },
        properties: { start: { $ref: '#/$defs/A' } },
      };
      expect(toGeminiSchema(schema).properties).toEqual({
        start: { type: 'object', properties: { b: { type: 'object', properties: { a: RECURSIVE } } } },
      });
    });

    it('expands a definition used twice on the same path but not within itself', () => {
      const schema = {
        $defs: {
          Leaf: { type: 'string' },
          Pair: { properties: { l: { $ref: '#/$defs/Leaf' }, r: { $ref: '#/$defs/Leaf' } } },
        },
        properties: { p: { $ref: '#/$defs/Pair' }, q: { $ref: '#/$defs/Pair' } },
      };
      const pair = { type: 'object', properties: { l: { type: 'string' }, r: { type: 'string' } } };
      expect(toGeminiSchema(schema).properties).toEqual({ p: pair, q: pair });
    });

    it('bounds the work on a ref graph that would explode when inlined', () => {
      const defs: Record<string, unknown> = { L30: { type: 'string' } };
      for (let i = 0; i < 30; i++) {
        defs[`L${i}`] = {
          type: 'object',
          properties: { a: { $ref: `#/$defs/L${i + 1}` }, b: { $ref: `#/$defs/L${i + 1}` } },
        };
      }
      const output = toGeminiSchema({ $defs: defs, properties: { root: { $ref: '#/$defs/L0' } } });
      expect(countSchemaNodes(output)).toBeLessThanOrEqual(GEMINI_MAX_SCHEMA_NODES + 1);
      expect(JSON.stringify(output)).toContain('(truncated)');
      expect(geminiViolations(output)).toEqual([]);
    });

    it('bounds the text a ref graph writes when inlined, not only its nodes', () => {
      // 54 KB, under what the registry stores: a 3,500-value enum reached through refs that double at each of 12 levels.
      const defs: Record<string, unknown> = {
        D12: { type: 'string', enum: Array.from({ length: 3500 }, (_, i) => `value-${String(i).padStart(5, '0')}`) },
      };
      for (let i = 0; i < 12; i++)
        defs[`D${i}`] = {
          type: 'array',
          items: { anyOf: [{ $ref: `#/$defs/D${i + 1}` }, { $ref: `#/$defs/D${i + 1}` }] },
        };
      const schema = { type: 'object', $defs: defs, properties: { root: { $ref: '#/$defs/D0' } } };
      expect(JSON.stringify(schema).length).toBeLessThan(MAX_SCHEMA_BYTES);
      const output = JSON.stringify(toGeminiSchema(schema));
      expect(output.length).toBeLessThan(1_000_000); // was 98 MB: over what Gemini takes in one request (20 MB)
      expect(output).toContain('(truncated)');
      expect(geminiViolations(JSON.parse(output))).toEqual([]);
    });
  });

  describe('odd inputs', () => {
    it('drops a property whose schema is false and its required entry', () => {
      expect(toGeminiSchema({ type: 'object', properties: { a: false, b: true }, required: ['a', 'b'] })).toEqual({
        type: 'object',
        properties: { b: ANY },
        required: ['b'],
      });
    });

    it('keeps a property named __proto__ as a property', () => {
      const input = JSON.parse(
        '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}',
      );
      const output = toGeminiSchema(input);
      expect(Object.keys(output.properties as object)).toEqual(['__proto__']);
      expect(output.required).toEqual(['__proto__']);
      expect(Object.getPrototypeOf(output.properties)).toBe(Object.prototype);
    });

    it('survives an object graph with a cycle', () => {
      const node: Record<string, unknown> = { type: 'object', properties: {} };
      (node.properties as Record<string, unknown>).self = node;
      expect(toGeminiSchema(node)).toEqual({ type: 'object', properties: { self: RECURSIVE } });
    });

    it('truncates a schema nested deeper than the bound instead of overflowing the stack', () => {
      const root: Record<string, unknown> = { type: 'object' };
      let current = root;
      for (let i = 0; i < 20_000; i++) {
        const next: Record<string, unknown> = { type: 'object' };
        current.properties = { next };
        current = next;
      }
      const output = toGeminiSchema(root);
      expect(JSON.stringify(output)).toContain('(truncated)');
      expect(countSchemaNodes(output)).toBeLessThan(100);
    });
  });
});
