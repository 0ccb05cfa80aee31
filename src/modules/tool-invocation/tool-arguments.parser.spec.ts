import { parseToolArguments } from './tool-arguments.parser';

describe('parseToolArguments', () => {
  it('accepts an object or a JSON string of one', () => {
    expect(parseToolArguments({ a: 1 })).toEqual({ ok: true, value: { a: 1 } });
    expect(parseToolArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });
  it('treats empty input as no arguments', () => {
    expect(parseToolArguments('')).toEqual({ ok: true, value: {} });
    expect(parseToolArguments(undefined)).toEqual({ ok: true, value: {} });
  });
  it('explains malformed JSON and non-objects', () => {
    expect(parseToolArguments('{"a":')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('not valid JSON'),
    });
    expect(parseToolArguments('[1]')).toMatchObject({ ok: false, problem: expect.stringContaining('an array') });
    expect(parseToolArguments(5)).toMatchObject({ ok: false, problem: expect.stringContaining('number') });
  });
  it('never quotes the text it could not parse', () => {
    for (const text of ['{"accountNo": "ACCT-1", oops}', 'pin 4921 please', '{"a": "ACCT-1"']) {
      const parsed = parseToolArguments(text);
      expect(parsed).toMatchObject({ ok: false, problem: expect.stringContaining('not valid JSON') });
      expect(JSON.stringify(parsed)).not.toMatch(/ACCT-1|4921/);
    }
  });
});
