import { evaluateRiskReadings, RiskReading } from './risk-readings';
import type { RiskVerdict } from './risk.types';

/**
 * The worker thread's entry (Piscina loads it by file name): the same evaluation as on the main thread, of readings
 * collected there. Nothing here may load `re2`: its binding crashes the process when a second thread loads it.
 */
export default function evaluateOnWorker(readings: readonly RiskReading[]): RiskVerdict {
  return evaluateRiskReadings(readings);
}
