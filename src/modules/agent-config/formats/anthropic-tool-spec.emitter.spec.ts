import { toAnthropicToolSpec } from './anthropic-tool-spec.emitter';
import { deepFreeze } from './model-formats.test-helpers';

describe('toAnthropicToolSpec', () => {
  it('emits {name, description, input_schema} with the schema passed through', () => {
    const parameters = {
      type: 'object',
      properties: { when: { type: 'string', format: 'date-time' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['when'],
      additionalProperties: false,
    };
    expect(toAnthropicToolSpec(deepFreeze({ name: 'book', description: 'Book a slot.', parameters }))).toEqual({
      name: 'book',
      description: 'Book a slot.',
      input_schema: parameters,
    });
  });

  it('adds type object and empty properties to a root that lacks them', () => {
    const spec = toAnthropicToolSpec(
      deepFreeze({ name: 'now', description: 'Time.', parameters: { description: 'none' } }),
    );
    expect(spec).toEqual({
      name: 'now',
      description: 'Time.',
      input_schema: { description: 'none', type: 'object', properties: {} },
    });
  });

  it('replaces a properties value that is not an object', () => {
    const spec = toAnthropicToolSpec({ name: 'x', description: 'x', parameters: { type: 'object', properties: [] } });
    expect(spec.input_schema).toEqual({ type: 'object', properties: {} });
  });
});
