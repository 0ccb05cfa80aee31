import { evaluateRiskArguments } from './risk-arguments.evaluator';

describe('evaluateRiskArguments with patternProperties hints', () => {
  const schema = { type: 'object', patternProperties: { '^(a+)+$': { type: 'string', 'x-risk': 'sql' } } };

  it('reads a key matched by a patternProperties regex with that property hint', () => {
    expect(evaluateRiskArguments({ aaa: 'DELETE FROM users' }, schema).rules).toEqual([
      expect.objectContaining({ rule: 'unscoped-delete', path: 'aaa' }),
    ]);
  });

  it('matches a hostile patternProperties regex against a long key in linear time', () => {
    let started = performance.now();
    evaluateRiskArguments({ ['a'.repeat(27) + '!']: 'hello' }, schema); // V8's backtracking engine: about 0.8 s
    expect(performance.now() - started).toBeLessThan(1000);
    started = performance.now();
    evaluateRiskArguments({ ['a'.repeat(100_000) + '!']: 'hello' }, schema);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
