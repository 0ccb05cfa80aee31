import { redact, redactJsonText, REDACTED } from './redaction';

describe('redact', () => {
  it('masks built-in sensitive keys at any depth, case-insensitively', () => {
    const out = redact({ user: 'a', Password: 'p', nested: [{ apiKey: 'k', ok: 1 }], headers: { Authorization: 'Bearer x' } });
    expect(out).toEqual({ user: 'a', Password: REDACTED, nested: [{ apiKey: REDACTED, ok: 1 }], headers: { Authorization: REDACTED } });
  });
  it('masks the tool\'s redactFields', () => {
    expect(redact({ ssn: '123', name: 'x' }, ['SSN'])).toEqual({ ssn: REDACTED, name: 'x' });
  });
  it('does not mutate its input', () => {
    const input = { token: 't' };
    redact(input);
    expect(input.token).toBe('t');
  });
  it('redacts JSON text and leaves other text alone', () => {
    expect(JSON.parse(redactJsonText('{"secret":"s","a":1}'))).toEqual({ secret: REDACTED, a: 1 });
    expect(redactJsonText('plain secret text')).toBe('plain secret text');
  });
});
