import type { GatewayConfig } from '@app/config/gateway-config';
import { JournalOutcomeRecorder } from './journal-outcome.recorder';
import type { JournalLeaseRenewer } from './journal-lease.renewer';
import type { ToolCallJournalRepository } from './tool-call-journal.repository';
import type { JournalClaim, JournalOutcome } from './journal.types';

const claim: JournalClaim = { tenantId: 't', sessionId: 's', toolCallId: 'c', owner: 'me#1' };
const outcome: JournalOutcome = {
  state: 'COMPLETED',
  resultStatus: 'COMPLETED',
  attempts: 1,
  durationMs: 5,
  isError: false,
  errorClass: null,
  content: 'done',
};
/** Holds nothing: runs the work, as the renewer does once its lease is set aside. */
const leases = { hold: (_claim: JournalClaim, work: () => Promise<unknown>) => work() } as JournalLeaseRenewer;

describe('JournalOutcomeRecorder', () => {
  describe('record', () => {
    it('writes the outcome again after a refused write, and answers what the write answered', async () => {
      const finish = jest.fn().mockRejectedValueOnce(new Error('deadlock')).mockResolvedValueOnce(true);
      const recorder = new JournalOutcomeRecorder({ finish } as unknown as ToolCallJournalRepository, leases, {
        journalLeaseMs: 1_000,
      } as GatewayConfig);

      await expect(recorder.record(claim, outcome)).resolves.toBe(true);
      expect(finish).toHaveBeenCalledTimes(2);
      expect(finish).toHaveBeenLastCalledWith(claim, 'me#1', outcome, expect.any(Number));
    });

    it('gives up with the last error once another write would come after JOURNAL_LEASE_MS', async () => {
      const finish = jest.fn().mockRejectedValue(new Error('the database is gone'));
      const recorder = new JournalOutcomeRecorder({ finish } as unknown as ToolCallJournalRepository, leases, {
        journalLeaseMs: 200,
      } as GatewayConfig);
      const started = Date.now();

      await expect(recorder.record(claim, outcome)).rejects.toThrow('the database is gone');
      expect(Date.now() - started).toBeLessThan(400);
      expect(finish.mock.calls.length).toBeGreaterThan(1);
    });
  });
});
