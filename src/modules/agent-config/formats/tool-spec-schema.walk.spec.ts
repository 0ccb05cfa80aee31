import { wellFormedJson } from './tool-spec-schema.walk';

describe('wellFormedJson', () => {
  it('replaces lone surrogates anywhere by U+FFFD, in the text and the value alike, and keeps pairs', () => {
    const { value, json } = wellFormedJson({ a: ['x\ud83d', { b: '\udc00y' }], ok: 'pair \ud83d\ude00' });
    expect(value).toEqual({ a: ['x\ufffd', { b: '\ufffdy' }], ok: 'pair \ud83d\ude00' });
    expect(JSON.parse(json)).toEqual(value);
    expect(json).not.toMatch(/\\ud[89a-f]/i);
  });

  it('leaves text that only reads like an escape (a backslash before "ud83d") and hands back the same object', () => {
    const spec = { description: 'write \\ud83d or \\\\ud83d literally' };
    const out = wellFormedJson(spec);
    expect(out.value).toBe(spec);
    expect(out.json).toBe(JSON.stringify(spec));
  });
});
