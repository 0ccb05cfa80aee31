import { cpuTimedUnder } from '@test/support/cpu-time';
import { ToolSchemaCompiler } from './tool-schema.compiler';

const objectWith = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('ToolSchemaCompiler', () => {
  const compiler = new ToolSchemaCompiler();
  let version = 0;
  const tool = (parameters: Record<string, unknown>) => ({ id: 'tool-under-test', version: ++version, parameters });

  describe('validateArguments', () => {
    it('matches a catastrophic-backtracking pattern in linear time', () => {
      const hostile = tool(objectWith({ q: { type: 'string', pattern: '^(a+)+$' } }));
      expect(compiler.validateArguments(hostile, { q: 'aaaa' })).toEqual([]); // compiled here, outside the timing
      const { value: problems, cpuMs } = cpuTimedUnder(500, () =>
        compiler.validateArguments(hostile, { q: 'a'.repeat(31) + '!' }),
      );
      const longer = cpuTimedUnder(500, () => compiler.validateArguments(hostile, { q: 'a'.repeat(100_000) + '!' }));
      expect(cpuMs + longer.cpuMs).toBeLessThan(1000);
      expect(problems).toEqual(['q: must match pattern "^(a+)+$"']);
      expect(longer.value).toHaveLength(1);
    });

    it('matches patternProperties keys in linear time', () => {
      const hostile = tool({ type: 'object', patternProperties: { '^(a+)+$': { type: 'integer' } } });
      compiler.validateArguments(hostile, {});
      const { value, cpuMs } = cpuTimedUnder(1000, () =>
        compiler.validateArguments(hostile, { ['a'.repeat(40) + '!']: 'x', aaa: 'not a number' }),
      );
      expect(value).toEqual(['aaa: must be integer']);
      expect(cpuMs).toBeLessThan(1000);
    });

    it.each([
      ['url', 'http://', ':', ''],
      ['regex', '', '.', ''],
      ['date-time', '', ' ', '@@'],
      ['iso-date-time', '2020-01-01T', ' ', '@@'],
      ['uri', '', ' ', ''],
      ['uri-reference', '', 'a', '!'],
      ['json-pointer', '', '.', '!'],
      ['email', '', '1.', '\u0000'],
    ])('checks format %s on a long hostile string in linear time', (format, prefix, repeated, suffix) => {
      const schema = tool(objectWith({ q: { type: 'string', format } }));
      compiler.validateArguments(schema, {});
      const { cpuMs } = cpuTimedUnder(1500, () =>
        compiler.validateArguments(schema, { q: prefix + repeated.repeat(40_000) + suffix }),
      );
      expect(cpuMs).toBeLessThan(1500);
    });

    it('checks format regex up to 10,000 characters (V8 took 2.2 s to compile a 1 MB one)', () => {
      const schema = tool(objectWith({ q: { type: 'string', format: 'regex' } }));
      compiler.validateArguments(schema, {});
      const { value, cpuMs } = cpuTimedUnder(1000, () =>
        compiler.validateArguments(schema, { q: '.'.repeat(1_000_000) }),
      );
      expect(value).toEqual(['q: must match format "regex"']);
      expect(cpuMs).toBeLessThan(1000);
      expect(compiler.validateArguments(schema, { q: '^[a-z]+(\\d{2})?$' })).toEqual([]);
      expect(compiler.validateArguments(schema, { q: '.'.repeat(10_000) })).toEqual([]);
      expect(compiler.validateArguments(schema, { q: '(unclosed' })).toEqual(['q: must match format "regex"']);
    });

    it('still checks format url', () => {
      const schema = tool(objectWith({ q: { type: 'string', format: 'url' } }));
      expect(compiler.validateArguments(schema, { q: 'https://example.com/a?b=c' })).toEqual([]);
      expect(compiler.validateArguments(schema, { q: 'ftp://files.example.com/x' })).toEqual([]);
      expect(compiler.validateArguments(schema, { q: 'example.com' })).toEqual(['q: must match format "url"']);
      expect(compiler.validateArguments(schema, { q: 'javascript:alert(1)' })).toEqual(['q: must match format "url"']);
      expect(compiler.validateArguments(schema, { q: 'http://exa mple.com' })).toEqual(['q: must match format "url"']);
    });

    it('refuses the call, without throwing, when a stored schema no longer compiles', () => {
      const stored = tool(objectWith({ q: { type: 'string', pattern: '^(?!admin)' } }));
      expect(compiler.validateArguments(stored, { q: 'x' })).toEqual([
        expect.stringContaining('pattern "^(?!admin)" is not supported'),
      ]);
    });
  });

  describe('checkDefinition', () => {
    it('refuses a pattern RE2 cannot run, naming the pattern and why', () => {
      const problems = compiler.checkDefinition(objectWith({ q: { type: 'string', pattern: '^(?=.*\\d)\\w+$' } }));
      expect(problems).toEqual([
        expect.stringMatching(/pattern "\^\(\?=\.\*\\\\d\)\\\\w\+\$" is not supported .*lookahead/),
      ]);
      expect(
        compiler.checkDefinition({ type: 'object', patternProperties: { '(\\w)\\1': { type: 'string' } } }),
      ).toEqual([expect.stringContaining('backreferences')]);
    });

    it('refuses a key named __proto__ anywhere in the schema, naming where (copies of it lose or misread it)', () => {
      const named = JSON.parse(
        '{"type":"object","properties":{"a":{"type":"object","properties":{"__proto__":{"type":"string"}}}}}',
      );
      expect(compiler.checkDefinition(named)).toEqual([
        expect.stringMatching(/\$\.properties\.a\.properties holds a key named "__proto__"/),
      ]);
      const keyword = JSON.parse(
        '{"type":"object","properties":{"q":{"type":"string","__proto__":{"type":"number"}}}}',
      );
      expect(compiler.checkDefinition(keyword)).toEqual([
        expect.stringContaining('$.properties.q holds a key named "__proto__"'),
      ]);
      expect(compiler.checkDefinition(objectWith({ proto: { type: 'string', description: '__proto__' } }))).toEqual([]);
    });

    it('refuses a number JSON cannot hold (1e400 reads as Infinity, stored and emitted as null), naming where', () => {
      const huge = JSON.parse('{"type":"object","properties":{"n":{"type":"number","maximum":1e400}}}');
      expect(compiler.checkDefinition(huge)).toEqual([
        expect.stringContaining('$.properties.n.maximum is a number too large for JSON'),
      ]);
      const inEnum = JSON.parse('{"type":"object","properties":{"n":{"enum":[1,-1e400]}}}');
      expect(compiler.checkDefinition(inEnum)).toEqual([expect.stringContaining('$.properties.n.enum[1] is a number')]);
      expect(compiler.checkDefinition(objectWith({ n: { type: 'number', maximum: 1e300 } }))).toEqual([]);
    });

    it('says what is wrong with a property name holding half of a surrogate pair (ajv threw "URI malformed")', () => {
      expect(compiler.checkDefinition(objectWith({ 'mood\ud83d': { type: 'string' } }))).toEqual([
        expect.stringContaining('holds half of a UTF-16 surrogate pair'),
      ]);
      expect(compiler.checkDefinition(objectWith({ 'mood \ud83d\ude00': { type: 'string' } }))).toEqual([]);
    });

    it('accepts patterns RE2 runs, with unicode classes', () => {
      expect(compiler.checkDefinition(objectWith({ q: { type: 'string', pattern: '^\\p{L}[\\w.-]{0,31}$' } }))).toEqual(
        [],
      );
    });

    it.each([
      ['http://json-schema.org/draft-04/schema#'],
      ['http://json-schema.org/draft-06/schema#'],
      ['https://example.com/my-meta-schema'],
      [42],
    ])('refuses $schema %p, naming the supported dialects', ($schema) => {
      const problems = compiler.checkDefinition(objectWith({}, { $schema }));
      expect(problems).toEqual([
        expect.stringContaining(
          'is not a supported dialect: use one of http://json-schema.org/draft-07/schema, https://json-schema.org/draft/2019-09/schema, https://json-schema.org/draft/2020-12/schema',
        ),
      ]);
    });

    it.each([
      ['http://json-schema.org/draft-07/schema#'],
      ['http://json-schema.org/draft-07/schema'],
      ['https://json-schema.org/draft/2019-09/schema'],
      ['https://json-schema.org/draft/2020-12/schema'],
    ])('accepts $schema %p', ($schema) => {
      expect(compiler.checkDefinition(objectWith({ q: { type: 'string' } }, { $schema }))).toEqual([]);
    });

    it('refuses a schema nested deeper than 64 levels (a remote or decorator schema; bodies are bounded earlier)', () => {
      let deep: unknown = 1;
      for (let i = 0; i < 5000; i++) deep = [deep];
      expect(compiler.checkDefinition(objectWith({ q: { enum: [deep] } }))).toEqual([
        expect.stringContaining('nested deeper than 64 levels'),
      ]);
    });

    it.each([
      ['allOf back to the root', { type: 'object', allOf: [{ $ref: '#' }] }, '#'],
      ['anyOf back to the root', { type: 'object', anyOf: [{ $ref: '#' }] }, '#'],
      ['a $ref at the root to itself', { type: 'object', $ref: '#' }, '#'],
      [
        'two definitions that refer to each other',
        objectWith(
          { a: { $ref: '#/$defs/A' } },
          { $defs: { A: { $ref: '#/$defs/B' }, B: { allOf: [{ $ref: '#/$defs/A' }] } } },
        ),
        '#/$defs/',
      ],
      [
        'a property whose not refers to itself',
        objectWith({ a: { not: { $ref: '#/properties/a' } } }),
        '#/properties/a',
      ],
    ])('refuses %s: checking arguments against it would never end', (_label, schema, ref) => {
      const problems = compiler.checkDefinition(schema);
      expect(problems).toEqual([expect.stringContaining('refers back to itself without descending into the value')]);
      expect(problems[0]).toContain(ref);
    });

    it('accepts a loop in a definition no part of the schema uses (a check never reaches it)', () => {
      expect(
        compiler.checkDefinition(
          objectWith({ a: { type: 'string' } }, { $defs: { A: { allOf: [{ $ref: '#/$defs/A' }] } } }),
        ),
      ).toEqual([]);
    });

    it('accepts recursion that descends into the value (a tree of nodes)', () => {
      expect(
        compiler.checkDefinition(
          objectWith(
            { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } }, parent: { $ref: '#' } },
            { $defs: { N: { anyOf: [{ type: 'null' }, { properties: { next: { $ref: '#/$defs/N' } } }] } } },
          ),
        ),
      ).toEqual([]);
    });
  });

  /** In-place loops through the refs the local-$ref walk does not follow: by $id, $recursiveRef, $dynamicRef. */
  const LOOPS_BY_OTHER_REFS: [string, Record<string, unknown>][] = [
    [
      '$recursiveRef (2019-09)',
      {
        $schema: 'https://json-schema.org/draft/2019-09/schema',
        $recursiveAnchor: true,
        type: 'object',
        allOf: [{ $recursiveRef: '#' }],
      },
    ],
    [
      '$dynamicRef (2020-12)',
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $dynamicAnchor: 'node',
        type: 'object',
        allOf: [{ $dynamicRef: '#node' }],
      },
    ],
    [
      'a $ref to the root by its $id',
      { $id: 'https://tools.example/args', type: 'object', allOf: [{ $ref: 'https://tools.example/args' }] },
    ],
  ];

  describe('checkDefinition of in-place loops through other refs', () => {
    it.each(LOOPS_BY_OTHER_REFS)('refuses %s: checking arguments against it would never end', (_label, schema) => {
      expect(compiler.checkDefinition(schema)).toEqual([expect.stringContaining('refers back to itself')]);
    });
  });

  describe('validateArguments of a stored in-place loop through other refs', () => {
    it.each(LOOPS_BY_OTHER_REFS)('%s: refuses the call with the reason instead of throwing', (_label, schema) => {
      expect(compiler.validateArguments(tool(schema), {})).toEqual([expect.stringContaining('refers back to itself')]);
    });
  });

  describe('validateArguments of a stored schema that refers back to itself in place', () => {
    it('refuses the call with the reason instead of overflowing the stack', () => {
      const looping = tool({ type: 'object', properties: { q: { type: 'string' } }, allOf: [{ $ref: '#' }] });
      expect(compiler.validateArguments(looping, { q: 'x' })).toEqual([
        expect.stringContaining('refers back to itself without descending into the value'),
      ]);
    });
  });
});
