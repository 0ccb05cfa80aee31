import { cpuTimedUnder } from '@test/support/cpu-time';
import { sentPropertyKey } from '@app/modules/agent-config/formats/sent-property-key';
import { GEMINI_ROOT_MAP_PROPERTY } from '@app/modules/agent-config/formats/gemini-root-map';
import { emitToolSpec } from '@app/modules/agent-config/formats/tool-spec.emitter';
import type { ModelFormat } from '@app/modules/agent-config/formats/model-format.types';
import { compileArgumentsReviver } from './tool-arguments.reviver';

const anthropicKey = (name: string) => sentPropertyKey(name, 'anthropic');

describe('compileArgumentsReviver', () => {
  const schema = {
    type: 'object',
    properties: {
      q: { type: 'string' },
      limit: { type: 'integer' },
      note: { type: ['string', 'null'] },
      anything: {},
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      tags: { type: 'array', items: { type: 'string' } },
      level: { enum: [1, 'high', true] },
      filter: { $ref: '#/$defs/Filter' },
    },
    required: ['q'],
    $defs: {
      Filter: {
        type: 'object',
        properties: { field: { type: 'string' }, op: { type: 'string' } },
        required: ['field'],
      },
    },
  };
  const revive = compileArgumentsReviver(schema)!;

  it('removes the null a strict-mode model sends for an optional property the schema does not allow null for', () => {
    expect(revive({ q: 'x', limit: null, note: null, anything: null, filter: { field: 'a', op: null } })).toEqual({
      q: 'x',
      note: null,
      anything: null,
      filter: { field: 'a' },
    });
  });

  it('removes the nulls of the alternatives a root oneOf lays out as one object', () => {
    const either = compileArgumentsReviver({
      type: 'object',
      oneOf: [
        { properties: { url: { type: 'string' } }, required: ['url'] },
        { properties: { path: { type: 'string' } }, required: ['path'] },
      ],
    })!;
    expect(either({ url: null, path: '/tmp/a' })).toEqual({ path: '/tmp/a' });
  });

  it('keeps a null on a required property, for the schema to refuse', () => {
    expect(revive({ q: null })).toEqual({ q: null });
  });

  it('parses back JSON text where the schema takes an object or an array and no string (Gemini stand-ins)', () => {
    expect(revive({ q: 'x', headers: '{"a":"b"}', tags: '["t"]' })).toEqual({
      q: 'x',
      headers: { a: 'b' },
      tags: ['t'],
    });
    expect(revive({ q: '{"not":"parsed"}', headers: 'not json' })).toEqual({
      q: '{"not":"parsed"}',
      headers: 'not json',
    });
  });

  it('parses back JSON text Gemini sends for a union alternative that takes an object, and for the properties of a union laid out inside a root alternative', () => {
    const union = compileArgumentsReviver({
      type: 'object',
      properties: {
        target: { anyOf: [{ type: 'object', additionalProperties: true }, { type: 'integer' }] },
        ids: { oneOf: [{ $ref: '#/$defs/Ids' }, { type: 'null' }] },
        label: { anyOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }] },
      },
      $defs: { Ids: { type: 'array', items: { type: 'integer' } } },
    })!;
    expect(union({ target: '{"id":1}', ids: '[1,2]', label: '{"a":1}' })).toEqual({
      target: { id: 1 },
      ids: [1, 2],
      label: '{"a":1}',
    });
    const nested = compileArgumentsReviver({
      type: 'object',
      anyOf: [
        {
          anyOf: [{ properties: { meta: { type: 'object', additionalProperties: true } } }, { properties: { b: {} } }],
        },
        { properties: { c: { type: 'string' } } },
      ],
    })!;
    expect(nested({ meta: '{"k":"v"}', c: 'x' })).toEqual({ meta: { k: 'v' }, c: 'x' });
  });

  it('takes the map a Gemini model sent as JSON text in the one property of a root map as the arguments', () => {
    const env = compileArgumentsReviver({ type: 'object', additionalProperties: { type: 'string' } })!;
    expect(env({ [GEMINI_ROOT_MAP_PROPERTY]: '{"A":"1","B":"2"}' })).toEqual({ A: '1', B: '2' });
    expect(env({ [GEMINI_ROOT_MAP_PROPERTY]: { A: '1' } })).toEqual({ A: '1' });
    // A map sent as it is (any other format) is left alone, and so is text that is no JSON object.
    expect(env({ A: '1' })).toEqual({ A: '1' });
    expect(env({ [GEMINI_ROOT_MAP_PROPERTY]: 'not json' })).toEqual({ [GEMINI_ROOT_MAP_PROPERTY]: 'not json' });
    expect(env({ [GEMINI_ROOT_MAP_PROPERTY]: '["A"]' })).toEqual({ [GEMINI_ROOT_MAP_PROPERTY]: '["A"]' });
    const named = compileArgumentsReviver({
      $ref: '#/$defs/Env',
      $defs: { Env: { type: 'object', additionalProperties: { type: 'string' } } },
    })!;
    expect(named({ [GEMINI_ROOT_MAP_PROPERTY]: '{"A":"1"}' })).toEqual({ A: '1' });
  });

  it('takes that one property as the map only from a model given the Gemini spec, or one of a format not known', () => {
    const env = compileArgumentsReviver({ type: 'object', additionalProperties: { type: 'string' } })!;
    const sent = { [GEMINI_ROOT_MAP_PROPERTY]: '{"A":"1"}' };
    expect(env(sent, 'gemini')).toEqual({ A: '1' });
    expect(env(sent)).toEqual({ A: '1' });
    // The other formats were given the map as it is: a key of that name is the map's own.
    for (const format of ['openai', 'openai-responses', 'anthropic'] as const) expect(env(sent, format)).toBe(sent);
  });

  it('parses the JSON text a model given the Gemini spec sends for a value of any type, and only from that model', () => {
    const any = compileArgumentsReviver({
      type: 'object',
      properties: { value: {}, list: { type: 'array' }, rule: { not: { type: 'null' } } },
    })!;
    const sent = { value: '{"a":1}', list: ['5', '"x"', 'plain text'], rule: 'true' };
    expect(any(sent, 'gemini')).toEqual({ value: { a: 1 }, list: [5, 'x', 'plain text'], rule: true });
    // Any other model was given the value as it is: its text is a string.
    for (const format of [undefined, 'openai', 'anthropic'] as const) expect(any(sent, format)).toBe(sent);
  });

  it('maps the text of a non-string enum value back to the value', () => {
    expect(revive({ q: 'x', level: '1' })).toEqual({ q: 'x', level: 1 });
    expect(revive({ q: 'x', level: 'true' })).toEqual({ q: 'x', level: true });
    expect(revive({ q: 'x', level: 'high' })).toEqual({ q: 'x', level: 'high' });
  });

  it('returns the same object when nothing applies, and does not mutate its input', () => {
    const args = Object.freeze({ q: 'x', limit: 3 });
    expect(revive(args)).toBe(args);
    const withNull = Object.freeze({ q: 'x', limit: null });
    expect(revive(withNull)).toEqual({ q: 'x' });
    expect(withNull).toEqual({ q: 'x', limit: null });
  });

  it('is null for a schema with nothing to undo, and survives recursion', () => {
    expect(
      compileArgumentsReviver({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }),
    ).toBeNull();
    const tree = compileArgumentsReviver({
      $defs: {
        N: {
          type: 'object',
          properties: { v: { type: 'integer' }, kids: { type: 'array', items: { $ref: '#/$defs/N' } } },
          required: ['kids'],
        },
      },
      $ref: '#/$defs/N',
    })!;
    expect(tree({ kids: [{ v: null, kids: [] }] })).toEqual({ kids: [{ kids: [] }] });
  });

  it('compiles a ref graph that doubles at every level in bounded time', () => {
    const defs: Record<string, unknown> = { D0: { type: 'integer' } };
    for (let i = 1; i <= 30; i++)
      defs[`D${i}`] = {
        type: 'object',
        properties: {
          a: { $ref: `#/$defs/D${i - 1}`, description: 'x' },
          b: { $ref: `#/$defs/D${i - 1}`, description: 'y' },
        },
      };
    const { value: revived, cpuMs } = cpuTimedUnder(2000, () => {
      const revive = compileArgumentsReviver({
        type: 'object',
        $defs: defs,
        properties: { x: { $ref: '#/$defs/D30' } },
      })!;
      return revive({ x: { a: null } });
    });
    expect(revived).toEqual({ x: {} });
    expect(cpuMs).toBeLessThan(2000);
  });

  it('maps the keys Anthropic was sent for property names it refuses back to the names, at any depth', () => {
    const odata = compileArgumentsReviver({
      type: 'object',
      properties: {
        $top: { type: 'integer' },
        'filter[name]': { type: 'string' },
        page: { type: 'object', properties: { 'page size': { type: 'integer' } } },
      },
    })!;
    const sent = anthropicKey;
    expect(odata({ [sent('$top')]: 5, [sent('filter[name]')]: 'x', page: { [sent('page size')]: 10 } })).toEqual({
      $top: 5,
      'filter[name]': 'x',
      page: { 'page size': 10 },
    });
    // The tool's own names go through untouched, and a renamed key never overwrites them.
    expect(odata({ $top: 5, [sent('$top')]: 6 })).toEqual({ $top: 5, [sent('$top')]: 6 });
  });

  describe('a round trip through each format: the spec sent, the model answering by its keys, the tool reading its names', () => {
    // Names JSON text writes alike (each half of a surrogate pair as U+FFFD), at the root and one level down.
    const names = ['a\uD800', 'a\uDC00', 'a\uFFFD'];
    const level = (tag: string) => ({
      type: 'object',
      properties: Object.fromEntries(names.map((n, i) => [n, { type: 'string', description: `${tag}${i}` }])),
      required: names,
      additionalProperties: false,
    });
    const parameters = { ...level('root'), properties: { ...level('root').properties, box: level('box') } };
    parameters.required = [...names, 'box'];

    /** Every spec variant, with the format the reviver is told for it. */
    const EVERY_FORMAT = [
      ['openai', 'openai'],
      ['openai-strict', 'openai'],
      ['openai-responses', 'openai-responses'],
      ['anthropic', 'anthropic'],
      ['gemini', 'gemini'],
    ] as const;

    /** The tool's parameters as the spec of `variant` sends them, and the warnings of that spec. */
    const sentParameters = (variant: (typeof EVERY_FORMAT)[number][0], parameters: Record<string, unknown>) => {
      const emitted = emitToolSpec(variant, { name: 't', description: 't', parameters });
      const spec = JSON.parse(emitted.json) as Record<string, Record<string, unknown> | undefined>;
      const sent = (spec.function?.parameters ?? spec.input_schema ?? spec.parameters) as Record<string, unknown>;
      return { sent, warnings: emitted.warnings };
    };

    /** What a model given `schema` sends: each string property's description as its value, under the key it was sent. */
    const answer = (schema: Record<string, unknown>): Record<string, unknown> =>
      Object.fromEntries(
        Object.entries(schema.properties as Record<string, Record<string, unknown>>).map(([key, child]) => [
          key,
          child.type === 'object' ? answer(child) : child.description,
        ]),
      );

    it.each(EVERY_FORMAT)('gives each name its own argument for %s', (variant, format: ModelFormat) => {
      const { sent } = sentParameters(variant, parameters);
      const revived = compileArgumentsReviver(parameters)!(answer(sent), format);
      const expected = (tag: string) => Object.fromEntries(names.map((n, i) => [n, `${tag}${i}`]));
      expect(revived).toEqual({ ...expected('root'), box: expected('box') });
    });

    it.each(EVERY_FORMAT)(
      'gives a name spelled as the key another name is sent as its own key and argument for %s',
      (variant, format: ModelFormat) => {
        // Each name beside one spelled as its renamed key, for Anthropic's rule and for JSON's (a surrogate half).
        const taken = ['ship to', 'a\uD800'].flatMap((n) => [n, anthropicKey(n), sentPropertyKey(n, 'json')]);
        const spelled = [...new Set(taken)];
        const twins = {
          type: 'object',
          properties: Object.fromEntries(spelled.map((n, i) => [n, { type: 'string', description: `v${i}` }])),
          required: spelled,
          additionalProperties: false,
        };
        const { sent, warnings } = sentParameters(variant, twins);
        expect(warnings).toContain(
          `#/properties/${anthropicKey('ship to')}: key sent as "${anthropicKey(anthropicKey('ship to'))}", as the ` +
            'name ends like a renamed key ("_" and 8 hex digits), which another name may be sent as (the gateway maps it back)',
        );
        expect(Object.keys(sent.properties as object)).toHaveLength(spelled.length);
        expect(new Set(sent.required as string[]).size).toBe(spelled.length);
        const revived = compileArgumentsReviver(twins)!(answer(sent), format);
        expect(revived).toEqual(Object.fromEntries(spelled.map((n, i) => [n, `v${i}`])));
      },
    );

    it.each(EVERY_FORMAT)(
      'gives names whose renamed keys coincide (same characters kept, same 8 hex digits) keys of their own for %s',
      (variant, format: ModelFormat) => {
        // Found by trying names: both are sent to Anthropic as "ship_______2e7328b3".
        const twins = ['ship{:%$  ', 'ship,$:+  '];
        expect(anthropicKey(twins[0])).toBe(anthropicKey(twins[1]));
        const parameters = {
          type: 'object',
          properties: {
            [twins[0]]: { type: 'string', description: 'v0' },
            [twins[1]]: { type: 'string', description: 'v1' },
            // A $ref through one of them still points at it.
            copy: { $ref: `#/properties/${encodeURIComponent(twins[1])}` },
          },
          required: twins,
        };
        const { sent } = sentParameters(variant, parameters);
        const properties = sent.properties as Record<string, Record<string, unknown>>;
        expect(Object.keys(properties)).toHaveLength(3);
        const required = sent.required as string[];
        expect(new Set(required).size).toBe(required.length);
        const ref = properties.copy.$ref as string | undefined;
        if (variant === 'anthropic') expect(ref).toBeDefined();
        if (ref !== undefined)
          expect(properties[decodeURIComponent(ref.slice('#/properties/'.length))]).toEqual({
            type: 'string',
            description: 'v1',
          });
        const { copy: _copy, ...answered } = answer(sent);
        void _copy;
        expect(compileArgumentsReviver(parameters)!(answered, format)).toEqual({ [twins[0]]: 'v0', [twins[1]]: 'v1' });
      },
    );
  });
});
