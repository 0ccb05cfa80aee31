import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

/**
 * A job that runs every `periodMs` (from the config, which `@Interval` cannot read), registered with Nest's
 * SchedulerRegistry at bootstrap so it is listed and stopped with the other scheduled jobs. `periodMs` null: off.
 * A round never overlaps the previous one (a slow round skips the ticks it spans); a failed round is logged.
 */
export abstract class IntervalJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(this.constructor.name);
  private running: Promise<void> | null = null;

  protected constructor(
    private readonly scheduler: SchedulerRegistry,
    /** Name of the interval in the SchedulerRegistry. */
    private readonly jobName: string,
    private readonly periodMs: number | null,
  ) {}

  /** One round of the job's work. */
  protected abstract round(): Promise<unknown>;

  onApplicationBootstrap(): void {
    if (this.periodMs === null) return;
    this.scheduler.addInterval(
      this.jobName,
      setInterval(() => void this.run(), this.periodMs),
    );
  }

  /** Runs one round now, or joins the one in flight. */
  run(): Promise<void> {
    this.running ??= this.round()
      .then(() => undefined)
      .catch((err: unknown) => this.logger.error(`${this.jobName} round failed: ${(err as Error).message}`))
      .finally(() => (this.running = null));
    return this.running;
  }

  onModuleDestroy(): void {
    if (this.scheduler.doesExist('interval', this.jobName)) this.scheduler.deleteInterval(this.jobName);
  }
}
