import type { RiskHint, RiskRule, RiskVerdict } from './risk.types';
import { RiskMatchSink } from './risk-match.sink';
import { newEvaluationWork } from './risk-scan';
import { evaluateTextInto } from './risk-text.evaluator';

/** Strings worth parsing per call; beyond this the rest counts as opaque (keeps one call well under a second). */
const MAX_PARSED_STRINGS = 2_000;

/**
 * What one call's arguments give the detector, in the order met: a text to read under a hint, or a finding of the
 * walk itself (arguments nested too deep). `path` says where in the arguments (`steps[1].sql`). Plain data: a call's
 * readings can be evaluated on a worker thread.
 */
export type RiskReading =
  { text: string; hint: RiskHint; path?: string } | { rule: RiskRule; match: string; path?: string };

/** The verdict on one call's readings: their texts share the call's bounds (strings parsed, work done). */
export function evaluateRiskReadings(readings: readonly RiskReading[]): RiskVerdict {
  const sink = new RiskMatchSink();
  const work = newEvaluationWork();
  let parsed = 0;
  for (const reading of readings) {
    sink.at(reading.path);
    if ('rule' in reading) sink.add(reading.rule, reading.match);
    else if (parsed >= MAX_PARSED_STRINGS) {
      sink.at(undefined);
      sink.add('opaque', `arguments hold more than ${MAX_PARSED_STRINGS} command-like strings`);
    } else if (evaluateTextInto(reading.text, reading.hint, sink, work)) parsed++;
  }
  return sink.verdict();
}

/** Characters of text in `readings`: what reading them costs, about linearly. */
export function readingChars(readings: readonly RiskReading[]): number {
  let chars = 0;
  for (const reading of readings) if ('text' in reading) chars += reading.text.length;
  return chars;
}
