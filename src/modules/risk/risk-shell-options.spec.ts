import { parseOptions } from './risk-shell-options';
import { literalWord } from './risk-shell-word';

const words = (line: string) => line.split(' ').map(literalWord);

describe('parseOptions', () => {
  it('reads short clusters, long options and operands in any order', () => {
    const parsed = parseOptions(words('dir -rf --verbose other'));
    expect([...parsed.short]).toEqual(['r', 'f']);
    expect([...parsed.long]).toEqual(['verbose']);
    expect(parsed.operands.map((w) => w.value)).toEqual(['dir', 'other']);
  });

  it('stops reading options at --', () => {
    const parsed = parseOptions(words('-f -- -r x'));
    expect(parsed.short.has('r')).toBe(false);
    expect(parsed.afterDashDash.map((w) => w.value)).toEqual(['-r', 'x']);
  });

  it('takes option values attached or from the next word', () => {
    const parsed = parseOptions(words('-n1 -I {} --max-procs 4 --delimiter=,'), {
      withValue: 'nI',
      longWithValue: ['max-procs'],
    });
    expect([...parsed.values].map(([k, v]) => [k, v.map((w) => w.value)])).toEqual([
      ['n', ['1']],
      ['I', ['{}']],
      ['max-procs', ['4']],
      ['delimiter', [',']],
    ]);
    expect(parsed.operands).toEqual([]);
  });

  it('keeps the wrapped command intact when stopping at the first operand', () => {
    expect(
      parseOptions(words('-u root rm -rf /'), { withValue: 'u', stopAtOperand: true }).rest.map((w) => w.value),
    ).toEqual(['rm', '-rf', '/']);
  });

  it('never lets an attached-only value swallow the next word (mysql -p)', () => {
    const parsed = parseOptions(words('-p -e x'), { withValue: 'e', attachedValue: 'p' });
    expect(parsed.values.get('e')?.map((w) => w.value)).toEqual(['x']);
    expect(parseOptions(words('-psecret'), { withValue: 'e', attachedValue: 'p' }).values.has('e')).toBe(false);
  });

  it('reads digit-only values so that perl -le is -l then -e', () => {
    expect(
      parseOptions(words('-l0 -le code'), { withValue: 'e', attachedDigits: 'l' })
        .values.get('e')
        ?.map((w) => w.value),
    ).toEqual(['code']);
  });
});
