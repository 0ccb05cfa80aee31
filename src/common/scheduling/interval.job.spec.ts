import { SchedulerRegistry } from '@nestjs/schedule';
import { IntervalJob } from './interval.job';

class CountingJob extends IntervalJob {
  rounds = 0;
  release: () => void = () => undefined;
  fail = false;

  constructor(scheduler: SchedulerRegistry, periodMs: number | null) {
    super(scheduler, 'counting', periodMs);
  }

  protected round(): Promise<unknown> {
    this.rounds++;
    if (this.fail) return Promise.reject(new Error('boom'));
    return new Promise<void>((resolve) => (this.release = resolve));
  }
}

describe('IntervalJob', () => {
  it('registers its interval at bootstrap and removes it on shutdown', () => {
    const scheduler = new SchedulerRegistry();
    const job = new CountingJob(scheduler, 60_000);
    job.onApplicationBootstrap();
    expect(scheduler.getIntervals()).toEqual(['counting']);
    job.onModuleDestroy();
    expect(scheduler.getIntervals()).toEqual([]);
  });

  it('registers nothing when its period is null (the job is switched off)', () => {
    const scheduler = new SchedulerRegistry();
    new CountingJob(scheduler, null).onApplicationBootstrap();
    expect(scheduler.getIntervals()).toEqual([]);
  });

  it('never starts a round while the previous one runs: a second run joins it', async () => {
    const job = new CountingJob(new SchedulerRegistry(), null);
    const first = job.run();
    const second = job.run();
    expect(job.rounds).toBe(1);
    job.release();
    await Promise.all([first, second]);
    const third = job.run();
    expect(job.rounds).toBe(2);
    job.release();
    await third;
  });

  it('logs a failed round instead of rejecting, and runs again next time', async () => {
    const job = new CountingJob(new SchedulerRegistry(), null);
    job.fail = true;
    await expect(job.run()).resolves.toBeUndefined();
    job.fail = false;
    const next = job.run();
    expect(job.rounds).toBe(2);
    job.release();
    await next;
  });
});
