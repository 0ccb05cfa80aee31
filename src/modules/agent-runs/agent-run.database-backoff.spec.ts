import { AgentRunDatabaseBackoff } from './agent-run.database-backoff';

describe('AgentRunDatabaseBackoff', () => {
  describe('next', () => {
    it('waits the base first, doubles for each hand-back in a row, and stops at the maximum', () => {
      const backoff = new AgentRunDatabaseBackoff(50, 400);

      expect([1, 2, 3, 4, 5, 6].map(() => backoff.next('r1'))).toEqual([50, 100, 200, 400, 400, 400]);
    });

    it('counts each run apart', () => {
      const backoff = new AgentRunDatabaseBackoff(50, 400);
      backoff.next('r1');
      backoff.next('r1');

      expect(backoff.next('r2')).toBe(50);
      expect(backoff.next('r1')).toBe(200);
    });

    it('never answers 0, nor less than the base, whatever the maximum', () => {
      expect(new AgentRunDatabaseBackoff(50, 0).next('r1')).toBe(50);
      expect(new AgentRunDatabaseBackoff(0, 0).next('r1')).toBeGreaterThan(0);
    });

    it('stays finite after many hand-backs', () => {
      const backoff = new AgentRunDatabaseBackoff(10, 3_600_000);
      let last = 0;
      for (let i = 0; i < 200; i++) last = backoff.next('r1');

      expect(last).toBe(3_600_000);
    });
  });

  describe('reset', () => {
    it('starts the run again from the base', () => {
      const backoff = new AgentRunDatabaseBackoff(50, 400);
      backoff.next('r1');
      backoff.next('r1');
      backoff.reset('r1');

      expect(backoff.next('r1')).toBe(50);
    });
  });
});
