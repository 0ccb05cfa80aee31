import { Injectable } from '@nestjs/common';
import type { RiskHint, RiskVerdict } from './risk.types';
import { evaluateRiskArguments } from './risk-arguments.evaluator';
import { evaluateRiskText } from './risk-text.evaluator';

export { RISK_RULES } from './risk.types';
export type { RiskHint, RiskMatch, RiskRule, RiskVerdict } from './risk.types';
export { evaluateRiskArguments, evaluateRiskText };

/** Injectable face of the risk detector (pure functions: no state, no I/O). */
@Injectable()
export class RiskDetector {
  /** See {@link evaluateRiskText}. */
  evaluateText(text: string, hint: RiskHint = 'auto'): RiskVerdict {
    return evaluateRiskText(text, hint);
  }

  /** See {@link evaluateRiskArguments}; `schema` is the tool's input JSON schema, read for `x-risk` hints. */
  evaluateArguments(args: unknown, schema?: Record<string, unknown>): RiskVerdict {
    return evaluateRiskArguments(args, schema);
  }
}
