import type { RiskRule } from '@app/modules/risk/risk.types';

/** One labelled text for the risk detector: `rules` (when given) must all be reported. */
export interface RiskCorpusEntry {
  text: string;
  risky: boolean;
  rules?: RiskRule[];
  note?: string;
  /** The class of danger (or of look-alike) the entry stands for, for per-class figures. */
  kind?: string;
}

export const risky = (text: string, rules: RiskRule[], note?: string): RiskCorpusEntry => ({
  text,
  risky: true,
  rules,
  note,
});
export const safe = (text: string, note?: string): RiskCorpusEntry => ({ text, risky: false, note });

/** Tags every entry of a list with its class. */
export function ofKind(kind: string, entries: RiskCorpusEntry[]): RiskCorpusEntry[] {
  return entries.map((entry) => ({ ...entry, kind }));
}
