import { cpuTimedUnder } from '@test/support/cpu-time';
import { toOpenAiStrictToolSpec } from './openai-strict-tool-spec.emitter';
import { openAiStrictSpecViolations } from './openai-strict-spec.validator';
import { deepFreeze } from './model-formats.test-helpers';
import { MAX_SCHEMA_BYTES } from '@app/modules/tool-registry/tool-schema.compiler';

/** The warning for one keyword moved into the description of the node at `pointer`. */
const strictMoved = (pointer: string, keyword: string) =>
  `${pointer}: ${keyword} moved into the description, as OpenAI strict mode does not take it there: the model reads ` +
  "it as text and OpenAI strict mode no longer enforces it (the gateway still checks each call against the tool's " +
  'own schema)';

type RawMember = { properties: Record<string, unknown>; required: string[] };

describe('toOpenAiStrictToolSpec', () => {
  it('lists every property in required, makes optional ones nullable and closes every object', () => {
    const { spec, warnings } = toOpenAiStrictToolSpec(
      deepFreeze({
        name: 'book',
        description: 'Book.',
        parameters: {
          type: 'object',
          properties: {
            when: { type: 'string', format: 'date-time' },
            room: {
              type: 'object',
              properties: { id: { type: 'integer' }, wing: { enum: ['a', 'b'] } },
              required: ['id'],
            },
            note: { type: 'string', minLength: 1, default: 'x' },
            kind: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
          },
          required: ['when'],
        },
      }),
    );
    expect(warnings).toEqual([
      '#/properties/note: minLength, default moved into the description, as OpenAI strict mode does not take them ' +
        'there: the model reads them as text and OpenAI strict mode no longer enforces them (the gateway still checks ' +
        "each call against the tool's own schema)",
    ]);
    expect(spec.function.strict).toBe(true);
    expect(spec.function.parameters).toEqual({
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        room: {
          type: ['object', 'null'],
          properties: { id: { type: 'integer' }, wing: { enum: ['a', 'b', null] } },
          required: ['id', 'wing'],
          additionalProperties: false,
        },
        note: { type: ['string', 'null'], description: '(minLength: 1; default: "x")' },
        kind: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
      },
      required: ['when', 'room', 'note', 'kind'],
      additionalProperties: false,
    });
    expect(openAiStrictSpecViolations(spec)).toEqual([]);
  });

  it('keeps a recursive definition under $defs and a ref back to the root as #, as strict mode supports', () => {
    const { spec, warnings } = toOpenAiStrictToolSpec({
      name: 'tree',
      description: 'd',
      parameters: {
        type: 'object',
        $defs: {
          Node: {
            type: 'object',
            properties: { v: { type: 'string' }, kids: { type: 'array', items: { $ref: '#/$defs/Node' } } },
            required: ['v', 'kids'],
          },
        },
        properties: { root: { $ref: '#/$defs/Node' }, parent: { $ref: '#' } },
        required: ['root'],
      },
    });
    expect(warnings).toEqual([]);
    const node = {
      type: 'object',
      properties: { v: { type: 'string' }, kids: { type: 'array', items: { $ref: '#/$defs/Node' } } },
      required: ['v', 'kids'],
      additionalProperties: false,
    };
    expect(spec.function.parameters).toEqual({
      type: 'object',
      properties: { root: node, parent: { anyOf: [{ $ref: '#' }, { type: 'null' }] } },
      required: ['root', 'parent'],
      additionalProperties: false,
      $defs: { Node: node },
    });
    expect(openAiStrictSpecViolations(spec)).toEqual([]);
  });

  it('keeps a recursive definition whose ref escapes its name (Tree%3Cstring%3E, a~1b), and two of one name apart', () => {
    const tree = (ref: string) => ({
      type: 'object',
      properties: { v: { type: 'string' }, kids: { type: 'array', items: { $ref: ref } } },
      required: ['v', 'kids'],
    });
    const { spec, warnings } = toOpenAiStrictToolSpec({
      name: 'trees',
      description: 'd',
      parameters: deepFreeze({
        type: 'object',
        definitions: { 'Tree<string>': tree('#/definitions/Tree%3Cstring%3E'), N: tree('#/definitions/N') },
        $defs: { 'a/b': tree('#/$defs/a~1b'), N: { ...tree('#/$defs/N'), description: 'the other N' } },
        properties: {
          generic: { $ref: '#/definitions/Tree%3Cstring%3E' },
          slash: { $ref: '#/$defs/a~1b' },
          n1: { $ref: '#/definitions/N' },
          n2: { $ref: '#/$defs/N' },
        },
        required: ['generic', 'slash', 'n1', 'n2'],
      }),
    });
    expect(warnings).toEqual([]);
    expect(spec.function.strict).toBe(true);
    const parameters = spec.function.parameters as { properties: Record<string, any>; $defs: Record<string, any> };
    const kidsRef = (property: string) => parameters.properties[property].properties.kids.items.$ref;
    expect(Object.keys(parameters.$defs).sort()).toEqual(['N', 'N_2', 'Tree<string>', 'a/b']);
    expect(kidsRef('generic')).toBe('#/$defs/Tree%3Cstring%3E');
    expect(kidsRef('slash')).toBe('#/$defs/a~1b');
    expect(parameters.$defs[kidsRef('n1').slice('#/$defs/'.length)].description).toBeUndefined();
    expect(parameters.$defs[kidsRef('n2').slice('#/$defs/'.length)].description).toBe('the other N');
    expect(openAiStrictSpecViolations(spec)).toEqual([]);
  });

  it('emits strict: false, refs kept, a schema whose inlined refs would write megabytes of descriptions', () => {
    // 45 KB, under what the registry stores: a 4,000-character description at each of 11 levels of refs that double.
    const defs: Record<string, unknown> = { D10: { type: 'string', description: 'e'.repeat(4000) } };
    for (let i = 0; i < 10; i++)
      defs[`D${i}`] = {
        type: 'array',
        description: 'd'.repeat(4000),
        items: { anyOf: [{ $ref: `#/$defs/D${i + 1}` }, { $ref: `#/$defs/D${i + 1}` }] },
      };
    const parameters = {
      type: 'object',
      $defs: defs,
      properties: { root: { $ref: '#/$defs/D0' } },
      required: ['root'],
    };
    expect(JSON.stringify(parameters).length).toBeLessThan(MAX_SCHEMA_BYTES);
    const { spec, warnings } = toOpenAiStrictToolSpec({ name: 'nested', description: 'd', parameters });
    expect(spec.function.strict).toBe(false); // was strict: true with 8 MB of parameters
    expect(JSON.stringify(spec).length).toBeLessThan(2 * MAX_SCHEMA_BYTES);
    expect(warnings).toEqual([
      expect.stringMatching(/strict: false because it would write more than 240000 characters of descriptions/),
    ]);
  });

  it('inlines definitions that are not recursive', () => {
    const { spec } = toOpenAiStrictToolSpec({
      name: 't',
      description: 'd',
      parameters: {
        type: 'object',
        $defs: { C: { type: 'string' } },
        properties: { c: { $ref: '#/$defs/C' } },
        required: ['c'],
      },
    });
    expect(spec.function.parameters).toEqual({
      type: 'object',
      properties: { c: { type: 'string' } },
      required: ['c'],
      additionalProperties: false,
    });
  });

  it("unites the properties beside a $ref with the target's", () => {
    const { spec } = toOpenAiStrictToolSpec({
      name: 't',
      description: 'd',
      parameters: {
        type: 'object',
        $defs: { B: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
        properties: { e: { $ref: '#/$defs/B', properties: { x: { type: 'boolean' } } } },
        required: ['e'],
      },
    });
    expect((spec.function.parameters.properties as Record<string, unknown>).e).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, x: { type: ['boolean', 'null'] } },
      required: ['id', 'x'],
      additionalProperties: false,
    });
  });

  it('merges an allOf of objects into one closed object', () => {
    const { spec, warnings } = toOpenAiStrictToolSpec({
      name: 't',
      description: 'd',
      parameters: {
        type: 'object',
        properties: {
          f: {
            allOf: [
              { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
              { properties: { b: { type: 'integer' } } },
            ],
          },
        },
        required: ['f'],
      },
    });
    expect(warnings).toEqual([]);
    expect((spec.function.parameters.properties as Record<string, unknown>).f).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: ['integer', 'null'] } },
      required: ['a', 'b'],
      additionalProperties: false,
    });
  });

  it('moves a pattern with a regex lookaround, which OpenAI refuses, into the description and keeps the others', () => {
    const { spec, warnings } = toOpenAiStrictToolSpec(
      deepFreeze({
        name: 'mail',
        description: 'Send mail.',
        parameters: {
          type: 'object',
          properties: {
            to: { type: 'string', description: 'Recipient.', pattern: '^(?!\\.)[a-z.]+@[a-z.]+$' },
            tags: { type: 'array', items: { type: 'string', pattern: '^(?<!-)[a-z]+$' } },
            code: { type: 'string', pattern: '^(?:[A-Z]{2})-[0-9]+$' },
          },
          required: ['to', 'tags', 'code'],
        },
      }),
    );
    expect(warnings).toEqual([
      strictMoved('#/properties/to', 'pattern'),
      strictMoved('#/properties/tags/items', 'pattern'),
    ]);
    expect(spec.function.strict).toBe(true);
    expect(spec.function.parameters.properties).toEqual({
      to: { type: 'string', description: 'Recipient. (pattern: "^(?!\\\\.)[a-z.]+@[a-z.]+$")' },
      tags: { type: 'array', items: { type: 'string', description: '(pattern: "^(?<!-)[a-z]+$")' } },
      code: { type: 'string', pattern: '^(?:[A-Z]{2})-[0-9]+$' },
    });
    expect(openAiStrictSpecViolations(spec)).toEqual([]);
  });

  it('names each node whose keywords it moves into the description by its JSON pointer, with the keywords', () => {
    const { spec, warnings } = toOpenAiStrictToolSpec(
      deepFreeze({
        name: 'order',
        description: 'Order.',
        parameters: {
          type: 'object',
          properties: {
            code: { type: 'string', minLength: 3, format: 'uri', default: 'ABC' },
            tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
            when: { type: 'string', format: 'date-time', pattern: '^2' },
          },
          required: ['code', 'tags', 'when'],
        },
      }),
    );
    expect(spec.function.strict).toBe(true);
    expect(warnings).toEqual([
      '#/properties/code: minLength, default, format moved into the description, as OpenAI strict mode does not take ' +
        'them there: the model reads them as text and OpenAI strict mode no longer enforces them (the gateway still ' +
        "checks each call against the tool's own schema)",
      strictMoved('#/properties/tags', 'uniqueItems'),
    ]);
  });

  it('moves nothing, and says so, for a tool it emits strict: false (the plain spec keeps every keyword)', () => {
    const { spec, warnings } = toOpenAiStrictToolSpec({
      name: 'tag',
      description: 'Tag.',
      parameters: {
        type: 'object',
        properties: { code: { type: 'string', minLength: 3 }, labels: { type: 'object', additionalProperties: {} } },
      },
    });
    expect(spec.function.strict).toBe(false);
    expect(spec.function.parameters.properties).toMatchObject({ code: { type: 'string', minLength: 3 } });
    expect(warnings).toEqual([expect.stringContaining('is a map')]);
  });

  it('lets the model pick any member of a root union by its discriminator', () => {
    const { spec, warnings } = toOpenAiStrictToolSpec(
      deepFreeze({
        name: 'notify',
        description: 'd',
        parameters: {
          type: 'object',
          oneOf: [
            { properties: { kind: { const: 'email' }, address: { type: 'string' } }, required: ['kind', 'address'] },
            { properties: { kind: { const: 'sms' }, phone: { type: 'string' } }, required: ['kind', 'phone'] },
          ],
        },
      }),
    );
    expect(warnings).toEqual([expect.stringContaining('#: root oneOf of 2 alternatives laid out as one object')]);
    expect(spec.function.parameters.properties).toEqual({
      kind: { anyOf: [{ const: 'email' }, { const: 'sms' }] },
      address: { type: ['string', 'null'] },
      phone: { type: ['string', 'null'] },
    });
    expect(openAiStrictSpecViolations(spec)).toEqual([]);
  });

  it('puts first in each object of an anyOf a property that tells it apart, as strict mode refuses identical first keys', () => {
    const contact = (second: string) => ({
      type: 'object',
      properties: { id: { type: 'string' }, [second]: { type: 'string' } },
      required: ['id', second],
    });
    const { spec, warnings } = toOpenAiStrictToolSpec(
      deepFreeze({
        name: 'notify',
        description: 'd',
        parameters: {
          type: 'object',
          properties: { to: { anyOf: [contact('email'), contact('phone')] } },
          required: ['to'],
        },
      }),
    );
    expect(warnings).toEqual([]);
    expect(spec.function.strict).toBe(true);
    const members = (spec.function.parameters.properties as Record<string, { anyOf: RawMember[] }>).to.anyOf;
    expect(members.map((m) => [Object.keys(m.properties), m.required])).toEqual([
      [
        ['email', 'id'],
        ['email', 'id'],
      ],
      [
        ['phone', 'id'],
        ['phone', 'id'],
      ],
    ]);
    expect(openAiStrictSpecViolations(spec)).toEqual([]);
  });

  it('leaves out of an enum the values its own type refuses, which strict mode would refuse the tool for', () => {
    const { spec, warnings } = toOpenAiStrictToolSpec(
      deepFreeze({
        name: 'rate',
        description: 'd',
        parameters: {
          type: 'object',
          properties: {
            level: { type: 'string', enum: ['low', 'high', null] },
            tier: { type: 'integer', enum: [1, 2, 'gold', 2.5] },
          },
          required: ['level'],
        },
      }),
    );
    expect(warnings).toEqual([]);
    expect(spec.function.strict).toBe(true);
    expect(spec.function.parameters.properties).toEqual({
      level: { type: 'string', enum: ['low', 'high'] },
      tier: { type: ['integer', 'null'], enum: [1, 2, null] },
    });
    expect(openAiStrictSpecViolations(spec)).toEqual([]);
  });

  it('emits strict: false, naming the anyOf, when no property tells its objects apart', () => {
    const same = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    const { spec, warnings } = toOpenAiStrictToolSpec({
      name: 'pick',
      description: 'd',
      parameters: { type: 'object', properties: { to: { anyOf: [same, { ...same, description: 'x' }] } } },
    });
    expect(spec.function.strict).toBe(false);
    expect(warnings).toEqual([
      expect.stringContaining('#/properties/to/anyOf: objects 0 and 1 share an identical first key "id"'),
    ]);
  });

  it.each([
    ['a map', { type: 'object', additionalProperties: { type: 'string' } }, { type: 'string' }],
    ['a free-form object', { type: 'object' }, true],
  ])('emits a root union with an alternative that is %s with strict: false, as a map anywhere', (_, member, keys) => {
    const { spec, warnings } = toOpenAiStrictToolSpec({
      name: 'label',
      description: 'd',
      parameters: {
        type: 'object',
        anyOf: [{ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, member],
      },
    });
    expect(spec.function.strict).toBe(false);
    expect(spec.function.parameters).toMatchObject({ additionalProperties: keys });
    expect(warnings).toEqual([
      expect.stringContaining('#: root anyOf of 2 alternatives laid out as one object'),
      expect.stringMatching(
        /^#\/anyOf\/1: alternative \(a (map|free-form object)\) of the root anyOf: its keys are allowed/,
      ),
      '#: strict: false because it is a map (additionalProperties), which strict mode cannot express',
    ]);
  });

  it.each([
    [
      'an allOf of a string and a number',
      { m: { allOf: [{ type: 'string' }, { minLength: 1 }] } },
      'uses allOf of schemas that are not all objects',
    ],
    ['an enum of objects', { m: { enum: [{ a: 1 }] } }, 'enum values must be'],
    ['a map', { m: { type: 'object', additionalProperties: { type: 'string' } } }, 'is a map'],
    ['a free-form object', { m: { type: 'object' } }, 'is a free-form object'],
    [
      'an object with pattern keys beside its properties',
      {
        m: { type: 'object', properties: { a: { type: 'string' } }, patternProperties: { '^x-': { type: 'string' } } },
      },
      '#/properties/m: strict: false because it is a map (patternProperties)',
    ],
    [
      'an object with unevaluated keys beside its properties',
      { m: { type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: { type: 'integer' } } },
      '#/properties/m: strict: false because it is a map (unevaluatedProperties)',
    ],
    ['a value of any type', { m: {} }, 'accepts a value of any type'],
    [
      'recursion through a JSON pointer',
      { m: { type: 'array', items: { type: 'object', properties: { n: { $ref: '#/properties/m' } } } } },
      'is recursive through #/properties/m',
    ],
  ])('emits %s with strict: false and says why', (_label, properties, reason) => {
    const { spec, warnings } = toOpenAiStrictToolSpec({
      name: 't',
      description: 'd',
      parameters: { type: 'object', properties },
    });
    expect(spec.function.strict).toBe(false);
    expect(spec.function.parameters).toMatchObject({ type: 'object', properties });
    expect(warnings).toEqual([expect.stringContaining(reason)]);
  });

  it('gives up with a warning, quickly, on a ref graph that doubles at every level once inlined', () => {
    const defs: Record<string, unknown> = { D0: { type: 'string' } };
    for (let i = 1; i <= 30; i++)
      defs[`D${i}`] = {
        type: 'object',
        properties: { a: { $ref: `#/$defs/D${i - 1}` }, b: { $ref: `#/$defs/D${i - 1}` } },
        required: ['a', 'b'],
      };
    const { value: emitted, cpuMs } = cpuTimedUnder(2000, () =>
      toOpenAiStrictToolSpec({
        name: 't',
        description: 'd',
        parameters: { type: 'object', $defs: defs, properties: { x: { $ref: '#/$defs/D30' } }, required: ['x'] },
      }),
    );
    const { spec, warnings } = emitted;
    expect(cpuMs).toBeLessThan(2000);
    expect(spec.function.strict).toBe(false);
    expect(warnings).toEqual([expect.stringContaining('larger than 10000 nodes')]);
  });
});
