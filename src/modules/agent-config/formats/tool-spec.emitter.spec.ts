import { ModelFormat, isModelFormat } from './model-format.types';
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
