import { LeaseRecoveryJob } from '@app/common/scheduling/lease-recovery.job';
import { SubagentTasksCloseHook } from './subagent-tasks.close-hook';

/**
 * Every JOURNAL_LEASE_MS (as the other recoveries of a process that died), closes the child sessions a parent's close
 * left open above a pending approval, so no approval of a closed tree waits in the review queue.
 */
export class SubagentCloseRecoveryJob extends LeaseRecoveryJob(
  'subagent-close-recovery',
  SubagentTasksCloseHook,
  (closeHook) => closeHook.closeAbandonedAboveApprovals(),
) {}
