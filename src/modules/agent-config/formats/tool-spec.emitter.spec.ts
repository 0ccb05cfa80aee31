import { MODEL_FORMATS, ModelFormat, isModelFormat } from './model-format.types';
import { emitToolSpec } from './tool-spec.emitter';

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

  it('says why a strict variant emitted strict: false, and nothing when it is strict', () => {
    expect(emitToolSpec('openai-strict', TOOL)).toMatchObject({ spec: { function: { strict: true } }, warnings: [] });
    const loose = emitToolSpec('openai-strict', { ...TOOL, parameters: { type: 'object', additionalProperties: {} } });
    expect(loose.spec).toMatchObject({ function: { strict: false } });
    expect(loose.warnings.length).toBeGreaterThan(0);
    expect(emitToolSpec('openai', TOOL).warnings).toEqual([]);
  });

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
