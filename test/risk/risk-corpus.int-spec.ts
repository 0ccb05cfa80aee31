import { evaluateRiskText } from '@app/modules/risk/risk-text.evaluator';
import { mayBeRisky } from '@app/modules/risk/risk-precheck';
import { RISK_RULES } from '@app/modules/risk/risk.types';
import { RISK_CORPUS } from './risk-corpus';

const verdicts = RISK_CORPUS.map((entry) => ({ entry, verdict: evaluateRiskText(entry.text) }));
const dangerous = verdicts.filter((v) => v.entry.risky);
const harmless = verdicts.filter((v) => !v.entry.risky);

describe('risk detector on the labelled corpus', () => {
  it('has enough dangerous and tricky safe texts to mean something', () => {
    expect(RISK_CORPUS.length).toBeGreaterThanOrEqual(120);
    expect(dangerous.length).toBeGreaterThanOrEqual(60);
    expect(harmless.length).toBeGreaterThanOrEqual(60);
  });

  it('misses no dangerous text', () => {
    const misses = dangerous.filter((v) => !v.verdict.risky).map((v) => v.entry.text);
    expect(misses).toEqual([]);
  });

  it('reports the expected rule for every labelled text', () => {
    const wrong = dangerous
      .filter((v) => v.entry.rules?.some((rule) => !v.verdict.rules.some((m) => m.rule === rule)))
      .map((v) => ({ text: v.entry.text, expected: v.entry.rules, got: v.verdict.rules.map((m) => m.rule) }));
    expect(wrong).toEqual([]);
  });

  it('keeps the false positive rate at or below 5%', () => {
    const falsePositives = harmless.filter((v) => v.verdict.risky);
    const rate = falsePositives.length / harmless.length;
    if (rate > 0.05)
      throw new Error(`FP rate ${(rate * 100).toFixed(1)}%: ${JSON.stringify(falsePositives.map((v) => v.verdict))}`);
    expect(rate).toBeLessThanOrEqual(0.05);
  });

  it('never lets the cheap pre-check skip a dangerous text', () => {
    expect(dangerous.filter((v) => !mayBeRisky(v.entry.text)).map((v) => v.entry.text)).toEqual([]);
  });

  it('labels every rule the detector has, and each class added for issue 9 with dangerous texts and safe look-alikes', () => {
    const labelled = new Set(RISK_CORPUS.flatMap((e) => e.rules ?? []));
    expect(RISK_RULES.filter((rule) => !labelled.has(rule))).toEqual([]);
    const kinds = new Set(RISK_CORPUS.map((e) => e.kind).filter((k) => k !== 'original'));
    for (const kind of kinds) {
      const entries = RISK_CORPUS.filter((e) => e.kind === kind);
      expect({ kind, risky: entries.some((e) => e.risky), safe: entries.some((e) => !e.risky) }).toEqual({
        kind,
        risky: true,
        safe: true,
      });
    }
  });

  it('gives a match snippet for every hit', () => {
    for (const { verdict } of dangerous) {
      for (const match of verdict.rules) expect(match.match.length).toBeGreaterThan(0);
    }
  });
});
