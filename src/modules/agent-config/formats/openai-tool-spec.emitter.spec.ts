import { toOpenAiToolSpec } from './openai-tool-spec.emitter';
import { deepFreeze } from './model-formats.test-helpers';
import { openAiSpecViolations } from './openai-spec.validator';

describe('toOpenAiToolSpec', () => {
  it('wraps the tool as {type:"function", function:{name, description, parameters}} with the schema untouched', () => {
    const parameters = {
      type: 'object',
      properties: { q: { type: 'string', const: 'x' }, n: { $ref: '#/$defs/N' } },
      required: ['q'],
      additionalProperties: false,
      $defs: { N: { type: ['integer', 'null'] } },
    };
    expect(toOpenAiToolSpec(deepFreeze({ name: 'search', description: 'Search.', parameters }))).toEqual({
      type: 'function',
      function: { name: 'search', description: 'Search.', parameters },
    });
  });

  it('gives a schema without properties an empty properties object and type object at the root', () => {
    const spec = toOpenAiToolSpec(deepFreeze({ name: 'ping', description: 'Ping.', parameters: {} }));
    expect(spec).toEqual({
      type: 'function',
      function: { name: 'ping', description: 'Ping.', parameters: { type: 'object', properties: {} } },
    });
  });

  it('forces type object on a root that declares another or none', () => {
    const spec = toOpenAiToolSpec({
      name: 't',
      description: 'd',
      parameters: { properties: { a: { type: 'string' } } },
    });
    expect(spec.function.parameters).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('returns a copy: editing the result leaves the cached input alone', () => {
    const parameters = deepFreeze({ type: 'object', properties: { a: { type: 'string' } } });
    const spec = toOpenAiToolSpec({ name: 't', description: 'd', parameters });
    (spec.function.parameters.properties as Record<string, Record<string, unknown>>).a.type = 'number';
    expect(parameters.properties.a.type).toBe('string');
  });

  it('keeps a required name that is no property as it is when it renames a key ending like a renamed one', () => {
    const parameters = deepFreeze({
      type: 'object',
      properties: { k_0123abcd: { type: 'integer' } },
      required: ['k_0123abcd', 'ghost'],
    });
    const spec = toOpenAiToolSpec({ name: 'list', description: 'd', parameters });
    const [sent] = Object.keys(spec.function.parameters.properties as object);
    expect(sent).not.toBe('k_0123abcd');
    expect(spec.function.parameters.required).toEqual([sent, 'ghost']);
    expect(openAiSpecViolations(spec)).toEqual([]);
  });

  it("cuts a description over OpenAI's 1,024-character cap, marking the cut", () => {
    const spec = toOpenAiToolSpec({ name: 't', description: 'x'.repeat(8000), parameters: { type: 'object' } });
    expect(spec.function.description).toHaveLength(1024);
    expect(spec.function.description.endsWith('x…')).toBe(true);
  });

  it('never cuts a description between the two halves of a character outside the BMP', () => {
    const description = `${'x'.repeat(1022)}${'\u{1F600}'.repeat(5)}`;
    const spec = toOpenAiToolSpec({ name: 't', description, parameters: { type: 'object' } });
    expect(spec.function.description).toBe(`${'x'.repeat(1022)}…`);
    expect(openAiSpecViolations(spec)).toEqual([]);
    const emoji = toOpenAiToolSpec({ name: 't', description: '\u{1F600}'.repeat(600), parameters: {} });
    expect(emoji.function.description).toBe(`${'\u{1F600}'.repeat(511)}…`);
  });
});
