import { deepFreeze } from './model-formats.test-helpers';
import { openAiResponsesSpecViolations } from './openai-responses-spec.validator';
import { toOpenAiResponsesToolSpec } from './openai-responses-tool-spec.emitter';

describe('toOpenAiResponsesToolSpec', () => {
  it('moves a pattern with a regex lookaround into the description of a tool strict mode cannot take', () => {
    const { spec, warnings } = toOpenAiResponsesToolSpec(
      deepFreeze({
        name: 'mail',
        description: 'Send mail.',
        parameters: {
          type: 'object',
          properties: {
            to: { type: 'string', description: 'Recipient.', pattern: '^(?!\\.)[a-z.]+@[a-z.]+$' },
            headers: { type: 'object', additionalProperties: { type: 'string', pattern: '^(?<!-)\\S+$' } },
            code: { type: 'string', pattern: '^[A-Z]{2}$' },
          },
          required: ['to'],
        },
      }),
    );
    expect(spec.strict).toBe(false);
    const moved = (pointer: string) =>
      `${pointer}: pattern moved into the description, as the Responses API does not take it there: the model reads ` +
      "it as text and the Responses API no longer enforces it (the gateway still checks each call against the tool's " +
      'own schema)';
    expect(warnings).toEqual([
      expect.stringContaining('is a map'),
      moved('#/properties/to'),
      moved('#/properties/headers/additionalProperties'),
    ]);
    expect(spec.parameters.properties).toEqual({
      to: { type: 'string', description: 'Recipient. (pattern: "^(?!\\\\.)[a-z.]+@[a-z.]+$")' },
      headers: { type: 'object', additionalProperties: { type: 'string', description: '(pattern: "^(?<!-)\\\\S+$")' } },
      code: { type: 'string', pattern: '^[A-Z]{2}$' },
    });
    expect(openAiResponsesSpecViolations(spec)).toEqual([]);
  });
});
