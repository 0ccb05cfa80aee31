import type { GatewayConfig } from '@app/config/gateway-config';
import { ResumeClaimRenewer } from './resume-claim.renewer';
import type { ResumeRecordRepository } from './resume-record.repository';

/**
 * One resume record kept in memory, with a renewal whose UPDATE is written at once but answered late (a slow round
 * trip), and a release that deletes only the heartbeat it is given, as the SQL statements do.
 */
class SlowlyAnsweredRecords {
  heartbeat: number | null;
  renewalStarted!: Promise<void>;
  private started!: () => void;

  constructor(at: number) {
    this.heartbeat = at;
    this.expectRenewal();
  }

  expectRenewal(): void {
    this.renewalStarted = new Promise((resolve) => (this.started = resolve));
  }

  async renew(_scope: string, _key: string, from: number, to: number): Promise<boolean> {
    const renewed = this.heartbeat === from;
    if (renewed) this.heartbeat = to;
    this.started();
    await new Promise((resolve) => setTimeout(resolve, 60));
    return renewed;
  }

  async release(_scope: string, _key: string, at: number): Promise<void> {
    if (this.heartbeat === at) this.heartbeat = null;
  }
}

describe('ResumeClaimRenewer', () => {
  const config = { journalLeaseMs: 300 } as GatewayConfig; // renewed every 100 ms

  it('gives the claim back even while a renewal of it is on its way: the release names the heartbeat it wrote', async () => {
    const records = new SlowlyAnsweredRecords(1);
    const renewer = new ResumeClaimRenewer(records as unknown as ResumeRecordRepository, config);
    try {
      await renewer.hold('session', 'msg-1', 1, async (lastHeartbeat) => {
        await records.renewalStarted; // the heartbeat moved in the database; the answer is still on its way
        await records.release('session', 'msg-1', await lastHeartbeat());
      });
      // Left IN_PROGRESS, the record would refuse every repeat with RESUME_IN_PROGRESS until it went stale.
      expect(records.heartbeat).toBeNull();
    } finally {
      renewer.onApplicationShutdown();
    }
  });

  it('renews a held claim with the heartbeat it wrote last, and stops once the work ends', async () => {
    const records = new SlowlyAnsweredRecords(1);
    const renewer = new ResumeClaimRenewer(records as unknown as ResumeRecordRepository, config);
    try {
      const seen: number[] = [];
      await renewer.hold('session', 'msg-2', 1, async (lastHeartbeat) => {
        for (let i = 0; i < 2; i++) {
          await records.renewalStarted;
          records.expectRenewal();
          seen.push(records.heartbeat!);
        }
        expect(await lastHeartbeat()).toBe(records.heartbeat);
      });
      expect(seen[1]).toBeGreaterThan(seen[0]);
      const last = records.heartbeat;
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(records.heartbeat).toBe(last);
    } finally {
      renewer.onApplicationShutdown();
    }
  });
});
