import { MODEL_FORMATS, ModelFormat, isModelFormat } from './model-format.types';
import { emitToolSpec } from './tool-spec.emitter';

const TOOL = {
  name: 'lookup',
  description: 'Find a customer.',
  parameters: { type: 'object', properties: { id: { const: 'c-1' } }, additionalProperties: false },
};

describe('emitToolSpec', () => {
  it('emits the OpenAI shape for openai', () => {
    expect(emitToolSpec('openai', TOOL)).toEqual({
      type: 'function',
      function: { name: 'lookup', description: 'Find a customer.', parameters: TOOL.parameters },
    });
  });

  it('emits the Anthropic shape for anthropic', () => {
    expect(emitToolSpec('anthropic', TOOL)).toEqual({
      name: 'lookup',
      description: 'Find a customer.',
      input_schema: TOOL.parameters,
    });
  });

  it('emits the Gemini shape, schema rewritten, for gemini', () => {
    expect(emitToolSpec('gemini', TOOL)).toEqual({
      name: 'lookup',
      description: 'Find a customer.',
      parameters: { type: 'object', properties: { id: { type: 'string', enum: ['c-1'] } } },
    });
  });

  it.each(MODEL_FORMATS)(
    'replaces half a surrogate pair in the description, which the providers refuse as invalid JSON, for %s',
    (format) => {
      const spec = emitToolSpec(format, { ...TOOL, description: 'Find \uD83D a customer \uDE00.' }) as {
        description?: string;
        function?: { description: string };
      };
      expect(spec.description ?? spec.function?.description).toBe('Find \uFFFD a customer \uFFFD.');
      expect(emitToolSpec(format, { ...TOOL, description: 'Smile \u{1F600}.' })).toMatchObject(
        format === 'openai' ? { function: { description: 'Smile \u{1F600}.' } } : { description: 'Smile \u{1F600}.' },
      );
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
