import { cpuTimedUnder } from '@test/support/cpu-time';
import { evaluateRiskArguments } from './risk-arguments.evaluator';

describe('evaluateRiskArguments with patternProperties hints', () => {
  const schema = { type: 'object', patternProperties: { '^(a+)+$': { type: 'string', 'x-risk': 'sql' } } };

  it('reads a key matched by a patternProperties regex with that property hint', () => {
    expect(evaluateRiskArguments({ aaa: 'DELETE FROM users' }, schema).rules).toEqual([
      expect.objectContaining({ rule: 'unscoped-delete', path: 'aaa' }),
    ]);
  });

  it('matches a hostile patternProperties regex against a long key in linear time', () => {
    // V8's backtracking engine: about 0.8 s
    for (const key of ['a'.repeat(27) + '!', 'a'.repeat(100_000) + '!'])
      expect(cpuTimedUnder(1000, () => evaluateRiskArguments({ [key]: 'hello' }, schema)).cpuMs).toBeLessThan(1000);
  });
});
