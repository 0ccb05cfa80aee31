import { LeaseRecoveryJob } from '@app/common/scheduling/lease-recovery.job';
import { SessionEventOutboxRecovery } from './session-event-outbox.recovery';

/** Writes abandoned kept events every JOURNAL_LEASE_MS (the time after which their process counts as dead). */
export class SessionEventOutboxJob extends LeaseRecoveryJob(
  'session-event-outbox-recovery',
  SessionEventOutboxRecovery,
  (recovery) => recovery.writeAbandoned(),
) {}
