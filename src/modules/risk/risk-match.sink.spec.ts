import { RiskMatchSink, riskSnippet } from './risk-match.sink';

describe('riskSnippet', () => {
  it('collapses whitespace and trims to about 200 characters', () => {
    expect(riskSnippet('  rm   -rf\n /  ')).toBe('rm -rf /');
    const long = riskSnippet(`rm -rf ${'a'.repeat(500)}`);
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('RiskMatchSink', () => {
  it('reports each hit once, tagged with the current path', () => {
    const sink = new RiskMatchSink();
    sink.at('steps[0]');
    sink.add('drop', 'DROP TABLE a');
    sink.add('drop', 'DROP TABLE a');
    sink.at(undefined);
    sink.add('drop', 'DROP TABLE b');
    expect(sink.verdict()).toEqual({
      risky: true,
      rules: [
        { rule: 'drop', match: 'DROP TABLE a', path: 'steps[0]' },
        { rule: 'drop', match: 'DROP TABLE b' },
      ],
    });
  });

  it('merges the same hit seen from an outer and an inner level', () => {
    const sink = new RiskMatchSink();
    sink.add('opaque', 'sh <<< $(curl x)');
    sink.add('opaque', '$(curl x)');
    sink.add('recursive-delete', '$(curl x)');
    expect(sink.verdict().rules.map((r) => r.rule)).toEqual(['opaque', 'recursive-delete']);
  });

  it('keeps at most 50 matches', () => {
    const sink = new RiskMatchSink();
    for (let i = 0; i < 80; i++) sink.add('recursive-delete', `rm -rf /d${i}/x`);
    expect(sink.verdict().rules).toHaveLength(50);
  });

  it('is not risky when empty', () => {
    expect(new RiskMatchSink().verdict()).toEqual({ risky: false, rules: [] });
  });
});
