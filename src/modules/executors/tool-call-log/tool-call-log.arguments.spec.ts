import { LOG_ARGUMENTS_MAX_CHARS, loggedArguments } from './tool-call-log.arguments';

describe('loggedArguments', () => {
  it('keeps arguments that fit as their JSON', () => {
    expect(loggedArguments({ path: 'a.txt' })).toBe('{"path":"a.txt"}');
    expect(loggedArguments(undefined)).toBe('null');
  });

  it('shortens larger arguments to a marker with the start of their JSON, never longer than about twice the cap', () => {
    const text = loggedArguments({ content: '"'.repeat(1_000_000) });
    expect(text.length).toBeLessThan(2 * LOG_ARGUMENTS_MAX_CHARS + 200);
    const parsed = JSON.parse(text);
    expect(parsed.$truncated).toMatch(/^arguments of 2000014 characters of JSON shortened for the log/);
    expect(parsed.preview).toBe(`{"content":"${'\\"'.repeat(1994)}`);
  });
});
