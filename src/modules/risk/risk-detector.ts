import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { RiskHint, RiskVerdict } from './risk.types';
import { collectRiskReadings, evaluateRiskArguments } from './risk-arguments.evaluator';
import { evaluateRiskReadings, readingChars } from './risk-readings';
import { evaluateRiskText } from './risk-text.evaluator';
import { RiskWorkerPool } from './risk-worker.pool';

export { RISK_RULES } from './risk.types';
export type { RiskHint, RiskMatch, RiskRule, RiskVerdict } from './risk.types';
export { evaluateRiskArguments, evaluateRiskText };

/**
 * Arguments with at least this many characters of text to read are evaluated on a worker thread. Below it a call's
 * evaluation takes microseconds to a few milliseconds and stays inline: a thread hop would cost more than it saves.
 */
export const RISK_OFF_THREAD_FROM_CHARS = 64 * 1024;

/** Injectable face of the risk detector (pure functions: no state, no I/O), with a worker thread for large calls. */
@Injectable()
export class RiskDetector implements OnApplicationShutdown {
  private readonly worker = new RiskWorkerPool();

  /** See {@link evaluateRiskText}. */
  evaluateText(text: string, hint: RiskHint = 'auto'): RiskVerdict {
    return evaluateRiskText(text, hint);
  }

  /** See {@link evaluateRiskArguments}; `schema` is the tool's input JSON schema, read for `x-risk` hints. */
  evaluateArguments(args: unknown, schema?: Record<string, unknown>): RiskVerdict {
    return evaluateRiskArguments(args, schema);
  }

  /**
   * {@link evaluateArguments} for a call about to run: large arguments are read on a worker thread, so that megabytes
   * of text do not hold up every other request meanwhile.
   */
  async evaluateCallArguments(args: unknown, schema?: Record<string, unknown>): Promise<RiskVerdict> {
    const readings = collectRiskReadings(args, schema);
    if (readingChars(readings) < RISK_OFF_THREAD_FROM_CHARS) return evaluateRiskReadings(readings);
    return this.worker.evaluate(readings);
  }

  /**
   * Once the HTTP server has answered the requests in flight and the agent loops have stopped (their onModuleDestroy),
   * as the other resources of calls close. In onModuleDestroy, before those, a call under way got an opaque verdict
   * (a human asked to approve a call for nothing), and a call made later started a thread no one closed.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.worker.close();
  }
}
