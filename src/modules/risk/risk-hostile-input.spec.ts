import { cpuTimedUnder } from '@test/support/cpu-time';
import { evaluateRiskArguments } from './risk-arguments.evaluator';
import { evaluateRiskText } from './risk-text.evaluator';

/**
 * Inputs that once took seconds to minutes (regex backtracking, quadratic scans); each must stay far below this.
 * Generous on purpose: the defect is super-linear growth, not a slow machine (speed itself is bench:risk's business).
 */
const BUDGET_MS = 8_000;

describe('evaluateRiskText on hostile input', () => {
  it.each([
    ['an unparseable line of 3000 git pushes', "it's " + 'git push x '.repeat(3_000)],
    ['an unparseable line of 10000 base64 words', "it's " + 'base64 '.repeat(10_000) + '| sh'],
    ['50 000 spaces before SQL-looking text', ' '.repeat(50_000) + 'x drop'],
    ['a DELETE with 500 nested parentheses', 'DELETE FROM t WHERE ' + '('.repeat(500) + 'id = 1' + ')'.repeat(500)],
    ['an ALTER TABLE of 20 000 words', 'ALTER TABLE t ' + 'x '.repeat(20_000) + 'DROP COLUMN y'],
    ['2 000 nested substitutions', '$('.repeat(2_000) + 'ls' + ')'.repeat(2_000)],
    ['a 300 kB script', 'rm -rf x; '.repeat(30_000)],
    ['an endless-loop one-liner repeated 20 000 times', 'python3 -c "' + 'while True: '.repeat(20_000) + '"'],
    ['a DELETE with 5 000 aliased tables', 'DELETE t FROM users' + ', x y'.repeat(5_000) + ' !'],
    ['a find with 10 000 starting points piped to xargs', 'find ' + '/ '.repeat(10_000) + '| xargs chmod 777'],
    ['a variable split on IFS into 20 000 words', 'IFS=,; X=' + 'a,'.repeat(20_000) + '; $X'],
    ['a string literal then 200 000 spaces in a one-liner', `python3 -c '"a"${' '.repeat(200_000)}x'`],
    ['40 000 nested PowerShell script blocks', 'icm { '.repeat(40_000) + 'ri x'],
    ['40 000 nested ForEach-Object blocks after a pipe', 'gci | ' + '% { '.repeat(40_000) + 'ri $_'],
    ['20 000 stacked timeout wrappers', 'timeout 1 '.repeat(20_000) + 'rm -rf /'],
    ['20 000 stacked xargs wrappers', 'xargs '.repeat(20_000) + 'rm -rf /'],
    ['20 000 stacked sudo wrappers in unparseable text', "it's " + 'sudo '.repeat(20_000) + 'rm -rf /'],
    ['20 000 repeated git -c settings', 'git ' + '-c a.b=c '.repeat(20_000) + 'push'],
    ['41 000 ssh hops, each handing the rest down as nested code', 'ssh h '.repeat(41_000) + 'rm -rf /'],
    ['41 000 watch commands, each handing the rest down', 'watch '.repeat(41_000) + 'rm -rf /'],
    ['40 000 nested ForEach-Object blocks in unparseable text', "it's " + '% { ri x '.repeat(40_000)],
    ['20 000 .NET deletes in one line', 'gci | % { ' + '$_.Delete(); '.repeat(20_000)],
    ['a .NET delete with 200 000 open parentheses', '[IO.File]::Delete(' + '('.repeat(200_000)],
  ])('finishes quickly on %s', (_label, text) => {
    const { cpuMs } = cpuTimedUnder(BUDGET_MS, () => evaluateRiskText(text));
    expect(cpuMs).toBeLessThan(BUDGET_MS);
  });

  it('flags a command behind more wrappers than any real line stacks as opaque, and reads a few as usual', () => {
    expect(evaluateRiskText('sudo '.repeat(40) + 'ls').rules.map((r) => r.rule)).toEqual(['opaque']);
    expect(evaluateRiskText('time '.repeat(20_000) + 'rm -rf /').risky).toBe(true);
    expect(evaluateRiskText('sudo env nice timeout 1 rm -rf /').rules.map((r) => r.rule)).toEqual(['recursive-delete']);
    expect(evaluateRiskText('sudo env nice timeout 1 ls /').risky).toBe(false);
  });

  it('reads at most 64 .NET deletes of one text, and flags one with more as opaque', () => {
    const deletes = (n: number) => "[IO.File]::Delete('a.txt'); ".repeat(n) + 'Write-Host (Get-Date)';
    expect(evaluateRiskText(deletes(64)).risky).toBe(false);
    expect(evaluateRiskText(deletes(65)).rules.map((r) => r.rule)).toEqual(['opaque']);
  });

  it('reads a statement handing 27 000 shell hops to bash -c near the parse limit in a fraction of the time it took', () => {
    // 1.7 s of CPU when each hop was parsed (50 µs and 20 kB of garbage each, whatever its size); 50 ms once bounded.
    // The budget leaves a loaded CI machine 15x the bounded cost and still fails the unbounded one.
    const text = `bash -c '${'sh -c x; '.repeat(27_700)}'`;
    const { value, cpuMs } = cpuTimedUnder(800, () => evaluateRiskText(text));
    expect(cpuMs).toBeLessThan(800);
    expect(value.rules.map((r) => r.rule)).toEqual(['opaque']);
  });

  it('reads at most 256 pieces of nested code in one evaluation, and flags the text handing more as opaque', () => {
    expect(evaluateRiskText('sh -c ls; '.repeat(256)).risky).toBe(false);
    expect(evaluateRiskText('sh -c ls; '.repeat(257)).rules.map((r) => r.rule)).toEqual(['opaque']);
  });

  it('parses at most 256 Ki characters in all: nested code past it, counted with the text around it, is opaque', () => {
    // A comment pads the nested code: it costs characters, not syntax nodes.
    const handedDown = (padding: number) => `bash -c 'rm -rf /srv; #${' x'.repeat(padding)}'`;
    expect(evaluateRiskText(handedDown(60_000)).rules.map((r) => r.rule)).toEqual(['recursive-delete']);
    expect(evaluateRiskText(handedDown(70_000)).rules.map((r) => r.rule)).toEqual(['opaque']);
  });

  describe('the budget of syntax nodes one evaluation may parse', () => {
    const rulesOf = (text: string) => evaluateRiskText(text).rules.map((r) => r.rule);
    /** `rm a` makes 5 nodes (a statement, two words and their literals): 6,000 of them 30,000, 7,000 of them 35,000. */
    const statements = (n: number) => 'rm a\n'.repeat(n);

    it('judges a script under the budget as usual', () => {
      expect(rulesOf(statements(6_000))).toEqual([]);
      expect(rulesOf(`${statements(6_000)}rm -rf /srv`)).toEqual(['recursive-delete']);
    });

    it('flags a script past it as too complex to judge, keeping what it found before', () => {
      expect(rulesOf(statements(7_000))).toEqual(['opaque']);
      expect(evaluateRiskText(statements(7_000)).rules[0].match).toMatch(/^too complex to judge/);
      expect(rulesOf(`rm -rf /srv\n${statements(7_000)}`)).toEqual(['recursive-delete', 'opaque']);
    });

    it.each([
      ['one block', `{\n${statements(7_000)}}`],
      ['one command substitution', `echo "$(\n${statements(7_000)})"`],
      ['one command of many words', `rm${' a'.repeat(20_000)}`],
      ['nested code with the text around it', `${statements(4_000)}bash -c '${statements(3_000)}'`],
    ])('counts every node, not only top-level statements: %s', (_label, text) => {
      expect(rulesOf(text)).toContain('opaque');
    });

    it('reports a text read line by line (it is not shell as a whole) that spends the budget once', () => {
      const lines = `it's not shell (\n${Array.from({ length: 400 }, (_, i) => `rm ${i}${' a'.repeat(100)}`).join('\n')}`;
      expect(evaluateRiskText(lines).rules.map((r) => r.rule)).toEqual(['opaque']);
    });

    it("shares it among one call's argument strings, and their bounds of nested code too", () => {
      const args = (...texts: string[]) => evaluateRiskArguments(Object.fromEntries(texts.map((t, i) => [`k${i}`, t])));
      // Each under the budget alone, past it together: 40 such strings used to cost each a whole budget of parsing.
      expect(args(statements(4_000)).risky).toBe(false);
      expect(args(statements(4_000), statements(4_000)).rules.map((r) => r.rule)).toEqual(['opaque']);
      expect(args('sh -c ls; '.repeat(200), 'sh -c ls; '.repeat(56)).risky).toBe(false);
      expect(args('sh -c ls; '.repeat(200), 'sh -c ls; '.repeat(57)).rules.map((r) => r.rule)).toEqual(['opaque']);
    });

    it('gives each evaluation its own budget, and parses normally after one spent it', () => {
      expect(rulesOf(statements(7_000))).toEqual(['opaque']);
      expect(rulesOf('cat <<EOF > x.sh\nrm -rf /srv\nEOF\nsh x.sh')).toEqual(['recursive-delete']);
      expect(rulesOf(statements(6_000))).toEqual([]);
    });
  });

  it('still flags a destructive command inside a huge script, with a bounded list of matches', () => {
    const value = evaluateRiskText(Array.from({ length: 3_000 }, (_, i) => `rm -rf /d${i}/x`).join('; '));
    expect(value.risky).toBe(true);
    expect(value.rules.length).toBeLessThanOrEqual(50);
  });

  it('bounds the work on arguments with thousands of command-like strings', () => {
    const args = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, `git push origin b${i}`]));
    const { value, cpuMs } = cpuTimedUnder(BUDGET_MS, () => evaluateRiskArguments(args));
    expect(cpuMs).toBeLessThan(BUDGET_MS);
    expect(value.rules.map((r) => r.rule)).toEqual(['opaque']);
  });
});
