import { anthropicSpecViolations } from './anthropic-spec.validator';
import { geminiSpecViolations } from './gemini-spec.validator';
import { openAiResponsesSpecViolations } from './openai-responses-spec.validator';
import { openAiSpecViolations } from './openai-spec.validator';
import { openAiStrictSpecViolations } from './openai-strict-spec.validator';

const openAi = (parameters: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'function',
  function: { name: 'f', description: 'd', parameters, ...extra },
});
const anthropic = (input_schema: unknown, name = 'f') => ({ name, description: 'd', input_schema });
const gemini = (parameters: unknown, name = 'f') => ({ name, description: 'd', parameters });
const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

/** The validators encode refusals the providers answer with; a validator that accepts everything would make the corpus suite pass for nothing. */
describe('provider validators', () => {
  describe('openAiSpecViolations', () => {
    it.each([
      ['a root anyOf', obj({}, { anyOf: [obj({ a: { type: 'string' } })] }), /anyOf is not allowed at the top level/],
      ['a root enum', obj({}, { enum: [{}] }), /enum is not allowed at the top level/],
      ['a root that is not an object', { type: 'array', items: {} }, /root must have type "object"/],
      ['an array without items', obj({ a: { type: 'array' } }), /#\/properties\/a: array schema missing items/],
      ['a draft-07 tuple', obj({ a: { type: 'array', items: [{ type: 'string' }] } }), /items must be one schema/],
      ['a boolean property schema', obj({ a: true }), /a subschema must be a JSON object/],
      ['a $ref that points nowhere', obj({ a: { $ref: '#/$defs/Nope' } }), /does not resolve/],
    ])('refuses %s', (_label, parameters, problem) => {
      expect(openAiSpecViolations(openAi(parameters)).join('\n')).toMatch(problem);
    });

    it('refuses a description over 1,024 characters and a name with a dot', () => {
      expect(
        openAiSpecViolations({
          type: 'function',
          function: { name: 'a.b', description: 'x'.repeat(1025), parameters: obj({}) },
        }),
      ).toEqual(['name: must match ^[a-zA-Z0-9_-]{1,64}$', 'description: longer than 1024 characters']);
    });

    it('refuses a description holding half of a surrogate pair (not valid JSON text for the API)', () => {
      expect(
        openAiSpecViolations({
          type: 'function',
          function: { name: 'f', description: `cut here \uD83D`, parameters: obj({}) },
        }),
      ).toEqual(['description: holds a lone UTF-16 surrogate (half of a character), which is not valid JSON text']);
    });

    it('accepts additionalProperties: false, $defs refs and nested combinators', () => {
      expect(
        openAiSpecViolations(
          openAi(
            obj(
              { a: { $ref: '#/$defs/A' }, b: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
              { additionalProperties: false, $defs: { A: { type: 'string' } } },
            ),
          ),
        ),
      ).toEqual([]);
    });
  });

  describe('openAiStrictSpecViolations', () => {
    const strict = (parameters: unknown) => openAi(parameters, { strict: true });
    it.each([
      [
        'an optional property',
        obj({ a: { type: 'string' } }, { additionalProperties: false, required: [] }),
        /property a must be listed in required/,
      ],
      ['an open object', obj({ a: { type: 'string' } }, { required: ['a'] }), /additionalProperties must be false/],
      [
        'minLength',
        obj({ a: { type: 'string', minLength: 1 } }, { required: ['a'], additionalProperties: false }),
        /keyword minLength is not supported/,
      ],
      [
        'a format outside the list',
        obj({ a: { type: 'string', format: 'uri' } }, { required: ['a'], additionalProperties: false }),
        /format uri is not supported/,
      ],
      ['a node of any type', obj({ a: {} }, { required: ['a'], additionalProperties: false }), /no type/],
      [
        'allOf',
        obj({ a: { allOf: [{ type: 'string' }] } }, { required: ['a'], additionalProperties: false }),
        /keyword allOf/,
      ],
      [
        'a pattern with a lookahead',
        obj({ a: { type: 'string', pattern: '^(?!\\.)[a-z.]+$' } }, { required: ['a'], additionalProperties: false }),
        /#\/properties\/a: pattern uses a regex lookaround/,
      ],
      [
        'a pattern with a lookbehind',
        obj({ a: { type: 'string', pattern: '(?<!-)x' } }, { required: ['a'], additionalProperties: false }),
        /#\/properties\/a: pattern uses a regex lookaround/,
      ],
    ])('refuses %s', (_label, parameters, problem) => {
      expect(openAiStrictSpecViolations(strict(parameters)).join('\n')).toMatch(problem);
    });

    it('refuses objects of an anyOf that share an identical first key, and accepts a first key that tells them apart', () => {
      const member = (first: Record<string, unknown>, rest: string) =>
        obj(
          { ...first, [rest]: { type: 'string' } },
          { required: [...Object.keys(first), rest], additionalProperties: false },
        );
      const union = (...members: unknown[]) =>
        strict(obj({ to: { anyOf: members } }, { required: ['to'], additionalProperties: false }));
      expect(
        openAiStrictSpecViolations(
          union(member({ id: { type: 'string' } }, 'email'), member({ id: { type: 'string' } }, 'phone')),
        ),
      ).toEqual([
        '#/properties/to/anyOf: objects 0 and 1 share an identical first key "id", which strict mode refuses ' +
          '("Objects provided via \'anyOf\' must not share identical first keys")',
      ]);
      expect(
        openAiStrictSpecViolations(
          union(member({ kind: { const: 'email' } }, 'email'), member({ kind: { const: 'sms' } }, 'phone')),
        ),
      ).toEqual([]);
    });

    it('refuses an enum or const value its declared type does not take, and accepts integers for number', () => {
      const one = (schema: Record<string, unknown>) =>
        openAiStrictSpecViolations(strict(obj({ a: schema }, { required: ['a'], additionalProperties: false })));
      expect(one({ type: 'string', enum: ['low', null] })).toEqual([
        '#/properties/a: enum value null does not validate against its type (string)',
      ]);
      expect(one({ type: 'integer', const: 1.5 })).toEqual([
        '#/properties/a: const value 1.5 does not validate against its type (integer)',
      ]);
      expect(one({ type: ['string', 'null'], enum: ['low', null] })).toEqual([]);
      expect(one({ type: 'number', enum: [1, 2.5] })).toEqual([]);
      expect(one({ enum: ['low', 1, null] })).toEqual([]);
    });

    it('refuses a $ref with keywords beside it, which strict mode refuses', () => {
      const parameters = obj(
        { a: { type: 'string' }, self: { $ref: '#', description: 'The parent.' } },
        { required: ['a', 'self'], additionalProperties: false },
      );
      expect(openAiStrictSpecViolations(strict(parameters))).toEqual([
        '#/properties/self: $ref cannot have keywords beside it (description)',
      ]);
    });

    it('accepts groups, escapes and classes that only look like a lookaround', () => {
      for (const pattern of ['^(?:ab)+$', '^(?<word>[a-z]+)$', '^\\(?=$', '^[(?=]+$', '^[\\](?!]+$'])
        expect(
          openAiStrictSpecViolations(
            strict(obj({ a: { type: 'string', pattern } }, { required: ['a'], additionalProperties: false })),
          ),
        ).toEqual([]);
    });

    it('refuses more than 10 levels of nesting and accepts the documented shape', () => {
      let deep: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < 11; i++) deep = obj({ n: deep }, { required: ['n'], additionalProperties: false });
      expect(openAiStrictSpecViolations(strict(deep)).join('\n')).toMatch(/nested deeper than 10 levels/);
      const ok = obj(
        { a: { type: ['string', 'null'], enum: ['x', null] }, b: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
        { required: ['a', 'b'], additionalProperties: false },
      );
      expect(openAiStrictSpecViolations(strict(ok))).toEqual([]);
      expect(openAiStrictSpecViolations(openAi(ok))).toEqual(['strict: must be true']);
    });
  });

  describe('anthropicSpecViolations', () => {
    it('refuses a description holding half of a surrogate pair (not valid JSON text for the API)', () => {
      expect(anthropicSpecViolations({ name: 'f', description: '\uDE00 x', input_schema: obj({}) })).toEqual([
        'description: holds a lone UTF-16 surrogate (half of a character), which is not valid JSON text',
      ]);
    });

    it.each([['oneOf'], ['allOf'], ['anyOf']])('refuses a root %s', (key) => {
      expect(anthropicSpecViolations(anthropic(obj({}, { [key]: [obj({})] })))).toEqual([
        `#: ${key} is not allowed at the top level`,
      ]);
    });

    it('refuses a draft-07 tuple and accepts an array without items', () => {
      expect(anthropicSpecViolations(anthropic(obj({ t: { type: 'array', items: [{}] } })))).toEqual([
        '#/properties/t: items must be one schema (a tuple as a list is draft-07 only)',
      ]);
      expect(anthropicSpecViolations(anthropic(obj({ t: { type: 'array' } })))).toEqual([]);
    });

    it('refuses property keys outside ^[a-zA-Z0-9_.-]{1,64}$, at the root and below', () => {
      expect(
        anthropicSpecViolations(
          anthropic(
            obj({
              $top: { type: 'integer' },
              'filter[id]': { type: 'string' },
              ['k'.repeat(65)]: { type: 'string' },
              nested: obj({ 'weird key': { type: 'string' } }),
              'ok.key-1_x': { type: 'string' },
            }),
          ),
        ),
      ).toEqual([
        '#/properties: key "$top" does not match ^[a-zA-Z0-9_.-]{1,64}$',
        '#/properties: key "filter[id]" does not match ^[a-zA-Z0-9_.-]{1,64}$',
        `#/properties: key "${'k'.repeat(65)}" does not match ^[a-zA-Z0-9_.-]{1,64}$`,
        '#/properties/nested/properties: key "weird key" does not match ^[a-zA-Z0-9_.-]{1,64}$',
      ]);
    });
  });

  describe('geminiSpecViolations', () => {
    it.each([
      ['an object without properties', obj({ m: { type: 'object' } }), /#\/properties\/m: object without properties/],
      ['a node with no type', obj({ m: { description: 'x' } }), /#\/properties\/m: no type/],
      ['an array without items', obj({ m: { type: 'array' } }), /array without items/],
      ['a non-string enum', obj({ m: { type: 'integer', enum: [1] } }), /enum on type integer/],
      [
        'an empty string among enum values',
        obj({ m: { type: 'string', enum: ['a', ''] } }),
        /#\/properties\/m: an enum value is the empty string/,
      ],
      [
        'additionalProperties',
        obj({ m: { type: 'string' } }, { additionalProperties: false }),
        /keyword additionalProperties/,
      ],
      ['a type list', obj({ m: { type: ['string', 'null'] } }), /type \["string","null"\]/],
    ])('refuses %s', (_label, parameters, problem) => {
      expect(geminiSpecViolations(gemini(parameters)).join('\n')).toMatch(problem);
    });

    it('refuses a name that starts with a digit and accepts a spec without parameters', () => {
      expect(geminiSpecViolations(gemini(obj({ a: { type: 'string' } }), '1tool'))).toEqual([
        'name: must match ^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$',
      ]);
      expect(geminiSpecViolations({ name: 'now', description: 'Time.' })).toEqual([]);
    });
  });

  describe('openAiResponsesSpecViolations', () => {
    it('holds a flat tool to strict mode unless it says strict: false', () => {
      const open = obj({ a: { type: 'string' } });
      expect(
        openAiResponsesSpecViolations({ type: 'function', name: 'f', description: 'd', parameters: open }).join('\n'),
      ).toMatch(/additionalProperties must be false/);
      expect(
        openAiResponsesSpecViolations({
          type: 'function',
          name: 'f',
          description: 'd',
          parameters: open,
          strict: false,
        }),
      ).toEqual([]);
      expect(openAiResponsesSpecViolations(openAi(open))).toEqual([
        'spec must be the flat {type:"function", name, description, parameters, strict}',
      ]);
    });

    it('refuses a pattern with a regex lookaround in a tool that is not strict too', () => {
      const parameters = obj({ a: { type: 'array', items: { type: 'string', pattern: '^(?=x)' } } });
      expect(
        openAiResponsesSpecViolations({ type: 'function', name: 'f', description: 'd', parameters, strict: false }),
      ).toEqual([
        '#/properties/a/items: pattern uses a regex lookaround ((?=, (?!, (?<=, (?<!), which the Responses API does not support',
      ]);
    });
  });
});
