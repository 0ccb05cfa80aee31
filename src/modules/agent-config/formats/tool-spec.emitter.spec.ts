import { PROPERTY_KEY_RULE_REASONS, sentPropertyKey } from './sent-property-key';
import { MODEL_FORMATS, ModelFormat, isModelFormat } from './model-format.types';
import { emitToolSpec } from './tool-spec.emitter';
import type { AnthropicToolSpec } from './model-format.types';
import { anthropicSpecViolations } from './anthropic-spec.validator';
import { geminiSpecViolations } from './gemini-spec.validator';
import { openAiResponsesSpecViolations } from './openai-responses-spec.validator';
import { openAiSpecViolations } from './openai-spec.validator';
import { openAiStrictSpecViolations } from './openai-strict-spec.validator';
import type { SpecVariant } from './tool-spec.emitter';

const anthropicKey = (name: string) => sentPropertyKey(name, 'anthropic');

/** The rules of the provider each variant's spec is sent to. */
const PROVIDER_VALIDATORS: Record<SpecVariant, (spec: unknown) => string[]> = {
  openai: openAiSpecViolations,
  'openai-strict': openAiStrictSpecViolations,
  'openai-responses': openAiResponsesSpecViolations,
  anthropic: anthropicSpecViolations,
  gemini: geminiSpecViolations,
};

/** The parameters schema of a spec as any format writes it. */
function sentParameters(spec: Record<string, unknown>): { properties: object; required: string[] } {
  const fn = spec.function as Record<string, unknown> | undefined;
  return (fn?.parameters ?? spec.input_schema ?? spec.parameters) as { properties: object; required: string[] };
}

const TOOL = {
  name: 'lookup',
  description: 'Find a customer.',
  parameters: { type: 'object', properties: { id: { const: 'c-1' } }, additionalProperties: false },
};

describe('emitToolSpec', () => {
  it('emits the OpenAI shape for openai', () => {
    expect(emitToolSpec('openai', TOOL).spec).toEqual({
      type: 'function',
      function: { name: 'lookup', description: 'Find a customer.', parameters: TOOL.parameters },
    });
  });

  it('emits the Anthropic shape for anthropic', () => {
    expect(emitToolSpec('anthropic', TOOL).spec).toEqual({
      name: 'lookup',
      description: 'Find a customer.',
      input_schema: TOOL.parameters,
    });
  });

  it('emits the Gemini shape, schema rewritten, for gemini', () => {
    expect(emitToolSpec('gemini', TOOL).spec).toEqual({
      name: 'lookup',
      description: 'Find a customer.',
      parameters: { type: 'object', properties: { id: { type: 'string', enum: ['c-1'] } } },
    });
  });

  it.each([...MODEL_FORMATS, 'openai-strict' as const])(
    'replaces half a surrogate pair anywhere in the spec, which the providers refuse as invalid JSON, for %s',
    (variant) => {
      const tool = {
        ...TOOL,
        description: 'Find \uD83D a customer \uDE00.',
        parameters: {
          type: 'object',
          properties: { id: { type: 'string', description: 'cut \uD83D', enum: ['a\uDC00', 'b'] } },
          required: ['id'],
          additionalProperties: false,
        },
      };
      const { spec, json } = emitToolSpec(variant, tool);
      expect(JSON.parse(json)).toEqual(spec);
      expect(json).not.toMatch(/\\ud[89a-f]/i);
      const text = JSON.stringify(spec);
      expect(text).toContain('Find \uFFFD a customer \uFFFD.');
      expect(text).toContain('cut \uFFFD');
      expect(text).toContain('a\uFFFD');
      expect(emitToolSpec(variant, { ...TOOL, description: 'Smile \u{1F600}.' }).json).toContain('Smile \u{1F600}.');
    },
  );

  it.each([...MODEL_FORMATS, 'openai-strict' as const])(
    'sends names that differ only in half a surrogate pair (which JSON text writes alike) as keys of their own, for %s',
    (variant) => {
      const names = ['a\uD800', 'a\uDC00', 'a\uFFFD'];
      const parameters = {
        type: 'object',
        properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
        required: names,
        additionalProperties: false,
      };
      const { json, warnings } = emitToolSpec(variant, { ...TOOL, parameters });
      const spec = JSON.parse(json) as Record<string, unknown>;
      expect(PROVIDER_VALIDATORS[variant](spec)).toEqual([]);
      const rule = variant === 'anthropic' ? 'anthropic' : 'json';
      expect(warnings).toContain(
        `#/properties/a\uDC00: key sent as "${sentPropertyKey('a\uDC00', rule)}", as ${PROPERTY_KEY_RULE_REASONS[rule]} ` +
          '(the gateway maps it back)',
      );
      const sent = sentParameters(spec);
      expect(Object.keys(sent.properties)).toHaveLength(3);
      expect([...sent.required].sort()).toEqual(Object.keys(sent.properties).sort());
    },
  );

  it('says why a strict variant emitted strict: false, and nothing when it is strict', () => {
    expect(emitToolSpec('openai-strict', TOOL)).toMatchObject({ spec: { function: { strict: true } }, warnings: [] });
    const loose = emitToolSpec('openai-strict', { ...TOOL, parameters: { type: 'object', additionalProperties: {} } });
    expect(loose.spec).toMatchObject({ function: { strict: false } });
    expect(loose.warnings.length).toBeGreaterThan(0);
    expect(emitToolSpec('openai', TOOL).warnings).toEqual([]);
  });

  describe('warnings of the openai and anthropic specs', () => {
    const LOSSY = {
      name: 'ship',
      description: 'Ship an order.',
      parameters: {
        type: 'object',
        oneOf: [
          { properties: { id: { type: 'string' } }, required: ['id'] },
          { properties: { ref: { type: 'string' } }, required: ['ref'] },
        ],
        not: { required: ['id', 'ref'] },
        properties: {
          'ship to': { type: 'string' },
          box: {
            type: 'object',
            properties: { size: { type: 'array', items: [{ type: 'number' }, { type: 'number' }] } },
          },
        },
      },
    };
    const LAID_OUT =
      '#: root oneOf of 2 alternatives laid out as one object, as OpenAI and Anthropic refuse a union at the root: ' +
      'the model reads which arguments go together in the description only';
    const NOT_DROPPED =
      '#/not: dropped, as OpenAI and Anthropic refuse it at the root (the gateway still checks it on each call)';
    const TUPLE =
      "#/properties/box/properties/size: a tuple sent as an array of any of its positions' schemas, in any order " +
      '(the positions are written into the description)';

    it('name each node the openai spec rewrites by its JSON pointer, and why', () => {
      expect(emitToolSpec('openai', LOSSY).warnings).toEqual([LAID_OUT, NOT_DROPPED, TUPLE]);
      expect(emitToolSpec('openai', { ...LOSSY, description: 'x'.repeat(2000) }).warnings).toEqual([
        LAID_OUT,
        NOT_DROPPED,
        TUPLE,
        "description: cut to 1024 characters, OpenAI's cap",
      ]);
    });

    it('name each key the anthropic spec renames by its JSON pointer, beside the rewrites openai has too', () => {
      expect(emitToolSpec('anthropic', LOSSY).warnings).toEqual([
        LAID_OUT,
        NOT_DROPPED,
        TUPLE,
        `#/properties/ship to: key sent as "${anthropicKey('ship to')}", as Anthropic refuses property keys ` +
          'outside ^[a-zA-Z0-9_.-]{1,64}$ (the gateway maps it back)',
      ]);
    });

    it('name the rewrites of a strict spec too, and each reason for strict: false by its JSON pointer', () => {
      expect(emitToolSpec('openai-strict', LOSSY)).toMatchObject({
        spec: { function: { strict: true } },
        warnings: [LAID_OUT, NOT_DROPPED, TUPLE],
      });
      const map = {
        ...LOSSY,
        parameters: {
          ...LOSSY.parameters,
          properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } },
        },
      };
      for (const variant of ['openai-strict', 'openai-responses'] as const)
        expect(emitToolSpec(variant, map).warnings).toEqual([
          LAID_OUT,
          NOT_DROPPED,
          '#/properties/tags: strict: false because it is a map (additionalProperties), which strict mode cannot express',
        ]);
    });
  });

  it("names a strict: false reason found in the rewritten schema by that node's JSON pointer too", () => {
    const tool = {
      name: 'tag',
      description: 'Tag.',
      parameters: { type: 'object', properties: { 'a/b': { const: { x: 1 } } }, required: ['a/b'] },
    };
    expect(emitToolSpec('openai-strict', tool).warnings).toEqual([
      'strict: false because strict mode would refuse the rewritten schema: #/properties/a~1b: const must be a ' +
        'string, number, boolean or null',
    ]);
  });

  it.each([...MODEL_FORMATS, 'openai-strict' as const])(
    'keeps a property named __proto__ a property, at the root and in a root union, for %s',
    (variant) => {
      // JSON.parse makes "__proto__" an own key, as the request body parser does: assigning it would set the prototype.
      const own = JSON.parse('{"__proto__": {"type": "string"}, "id": {"type": "string"}}') as Record<string, unknown>;
      const member = JSON.parse('{"properties": {"__proto__": {"type": "number"}}, "required": ["__proto__"]}');
      for (const parameters of [
        { type: 'object', properties: own, required: ['__proto__', 'id'], additionalProperties: false },
        { type: 'object', anyOf: [member, { properties: { id: { type: 'string' } }, required: ['id'] }] },
      ]) {
        const { json } = emitToolSpec(variant, { ...TOOL, parameters });
        const spec = JSON.parse(json) as {
          function?: { parameters: unknown };
          input_schema?: unknown;
          parameters?: unknown;
        };
        const sent = (spec.function?.parameters ?? spec.input_schema ?? spec.parameters) as { properties: object };
        expect(Object.keys(sent.properties)).toContain('__proto__');
      }
    },
  );

  it.each(['openai', 'anthropic'] as const)(
    'emits a schema of 150,000 properties (a 2 MB body) without overflowing the call stack, for %s',
    (variant) => {
      const properties = Object.fromEntries(Array.from({ length: 150_000 }, (_, i) => [`p${i}`, {}]));
      const { spec } = emitToolSpec(variant, { ...TOOL, parameters: { type: 'object', properties } });
      const sent = ('function' in spec ? spec.function.parameters : (spec as AnthropicToolSpec).input_schema) as {
        properties: object;
      };
      expect(Object.keys(sent.properties)).toHaveLength(150_000);
    },
  );

  it('throws a clear error for an unknown format, including inherited names', () => {
    expect(() => emitToolSpec('mistral' as ModelFormat, TOOL)).toThrow('Unknown model format "mistral"');
    expect(() => emitToolSpec('toString' as ModelFormat, TOOL)).toThrow('Unknown model format "toString"');
  });
});

describe('isModelFormat', () => {
  it('accepts the three formats and nothing else', () => {
    expect(['openai', 'anthropic', 'gemini'].every(isModelFormat)).toBe(true);
    expect([undefined, 'OpenAI', 'constructor', 1].some(isModelFormat)).toBe(false);
  });
});
