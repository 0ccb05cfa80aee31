import { LeaseRecoveryJob } from '@app/common/scheduling/lease-recovery.job';
import { AbandonedDecisionRecovery } from './abandoned-decision.recovery';

/** Carries out abandoned saved decisions every JOURNAL_LEASE_MS (the time after which their claim counts as dead). */
export class AbandonedDecisionJob extends LeaseRecoveryJob(
  'abandoned-decision-recovery',
  AbandonedDecisionRecovery,
  (recovery) => recovery.carryOut(),
) {}
