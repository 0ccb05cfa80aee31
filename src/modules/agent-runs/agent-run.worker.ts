import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { AgentRunQueue } from './agent-run.queue';
import { AgentRunLoop } from './agent-run.loop';
import { AgentRunNotifier } from './agent-run.notifier';
import type { AgentRunEntity } from './agent-run.entity';
import { withAnySignal } from '@app/common/abort-race';
import { databaseErrorCode } from '@app/database/database-error-code';

/**
 * TASK_WORKERS loops per instance that take runs from the shared queue and work them while renewing their lease (the
 * AgentRunWaker queues again the runs whose human decision arrived). On shutdown the loops stop and give their runs
 * back to the queue; after a crash the lease expires and any instance continues.
 * A call that waits for a child run (SUB_AGENT_CALL) lends its place to one more loop for as long as it waits
 * ({@link lendWhile}), which works that child run only: a chain of sub-agents deeper than TASK_WORKERS never waits for
 * a worker of its own, and TASK_WORKERS still bounds how many other runs work at once.
 */
@Injectable()
export class AgentRunWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AgentRunWorker.name);
  private readonly stopping = new AbortController();
  private loops: Promise<void>[] = [];
  /** Loops lent to waiting calls, running until their wait ends (and the run they work, if any). */
  private readonly lent = new Set<Promise<void>>();
  private lentCount = 0;
  /**
   * This process's prefix of its loops' owner names: the instance id and a token of this process. Two processes given
   * one GATEWAY_INSTANCE_ID (one env file for every replica) would otherwise share owner names, and a worker whose run
   * the other took over after its lease expired would go on renewing and writing it as if it still held it.
   */
  private readonly ownerPrefix: string;
  /**
   * The runs a loop of this instance works right now (by how many loops: one that lost the lease may not have noticed
   * yet): only their calls hold a place they can lend. A call names its run (ToolCallContext.runId) when the run's
   * loop made it; a runtime's act on the same session, served beside the run, names none.
   */
  private readonly working = new Map<string, number>();
  /**
   * Child runs reserved for the loop lent to the call that waits for them ({@link reservation}): this instance's other
   * loops leave them alone until that wait ends.
   */
  private readonly reserved = new Set<string>();

  constructor(
    private readonly queue: AgentRunQueue,
    private readonly loop: AgentRunLoop,
    private readonly notifier: AgentRunNotifier,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.ownerPrefix = `${config.instanceId}#${randomBytes(4).toString('hex')}`;
  }

  onApplicationBootstrap(): void {
    const { taskWorkers } = this.config.agentLoop;
    this.loops = Array.from({ length: taskWorkers }, (_, i) => this.runLoop(`${this.ownerPrefix}#${i}`));
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping.abort();
    await Promise.all([...this.loops, ...this.lent]);
  }

  /**
   * Runs `wait` (a call made by run `callerRunId`, if any, blocked until the child run `runId` stops, and ending when
   * the signal it gets aborts: this instance is stopping, and its loops are awaited) while one more loop works
   * that run in its place, whenever it is claimable (queued, or back from a human decision); that loop ends with the
   * wait, before `wait`'s answer is returned: a model request of the run under way is cut (its round is asked again
   * later, from the checkpoint), an act under way is finished and checkpointed, and the run goes back to the queue,
   * where TASK_WORKERS bounds it like any run (children of calls that waited briefly were worked to their end beyond
   * it). Only a call a run makes, on the loop that works it, has a place to
   * lend: a runtime's own act holds none, also on a session whose run this instance works (its children lent loops
   * beyond TASK_WORKERS, as many as its acts waited at once), nor does an instance that runs no workers.
   */
  async lendWhile<T>(
    callerRunId: string | undefined,
    runId: string,
    wait: (stopping: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const { signal: stopping } = this.stopping;
    if (!this.lends(callerRunId)) {
      this.reserved.delete(runId);
      return wait(stopping);
    }
    const waited = new AbortController();
    const loop = this.runLoop(`${this.ownerPrefix}#lent-${++this.lentCount}`, {
      until: waited.signal,
      runId,
    });
    this.lent.add(loop);
    void loop.finally(() => this.lent.delete(loop));
    try {
      return await wait(stopping);
    } finally {
      // The place comes back before the caller goes on: the lent loop gives its run back (a model request of it cut,
      // an act of it finished) and ends, so this call's run and the lent loop never work at once.
      waited.abort();
      await loop.catch(() => undefined);
      this.reserved.delete(runId);
    }
  }

  /**
   * For a call of run `callerRunId` about to queue the child run it will wait for with {@link lendWhile}: `reserve`,
   * given the child's run id before its queueing commits, keeps this instance's other loops from claiming it, so the
   * loop lent to the call works it. Else an idle loop, woken by the queueing, took it first: the lent loop idled, and
   * the place the call's worker lent was lost to every other run meanwhile. Undefined when the call lends nothing.
   * `settle`: the child the call waits for (undefined: none was queued); a reserved run that is not it (its queueing
   * rolled back) is let go.
   */
  reservation(
    callerRunId: string | undefined,
  ): { reserve: (runId: string) => void; settle: (childRunId?: string) => void } | undefined {
    if (!this.lends(callerRunId)) return undefined;
    let reserved: string | undefined;
    return {
      reserve: (runId) => {
        if (reserved !== undefined) this.reserved.delete(reserved);
        reserved = runId;
        this.reserved.add(runId);
      },
      settle: (childRunId) => {
        if (reserved !== undefined && reserved !== childRunId) this.reserved.delete(reserved);
      },
    };
  }

  /** Whether a call of `callerRunId` lends its place: it was made by a run a loop of this instance works. */
  private lends(callerRunId: string | undefined): callerRunId is string {
    return !!callerRunId && this.working.has(callerRunId) && !this.stopping.signal.aborted;
  }

  /** `lent`: a lent loop's end (it stops taking runs once it aborts) and the only run it works. */
  private runLoop(owner: string, lent?: { until: AbortSignal; runId: string }): Promise<void> {
    return withAnySignal([this.stopping.signal, lent?.until], (idle) => this.loopUntil(idle, owner, lent));
  }

  /** The loop's work until `idle` aborts (this instance stops, or a lent loop's wait is over). */
  private async loopUntil(
    idle: AbortSignal,
    owner: string,
    lent?: { until: AbortSignal; runId: string },
  ): Promise<void> {
    const { pollIntervalMs } = this.config.agentLoop;
    while (!idle.aborted) {
      let run: AgentRunEntity | null = null;
      try {
        run = lent
          ? await this.queue.claimRun(lent.runId, owner, this.leaseMs)
          : await this.queue.claim(owner, this.leaseMs, this.reserved);
      } catch (err) {
        if (this.stopping.signal.aborted) return;
        this.logger.warn(`run queue unavailable: ${(err as Error).message}`);
      }
      if (run) await this.work(run, owner, lent?.until);
      else await this.notifier.nextQueued(pollIntervalMs, idle);
    }
  }

  /** `handBack`: a lent loop's end; once its wait is over, the run goes back to the queue before its next step. */
  private async work(run: AgentRunEntity, owner: string, handBack?: AbortSignal): Promise<void> {
    const lost = new AbortController();
    const onStop = () => lost.abort();
    this.stopping.signal.addEventListener('abort', onStop, { once: true });
    const renewal = setInterval(
      () => {
        this.queue.renew(run.id, owner, this.leaseMs).then(
          (held) => held || lost.abort(),
          () => undefined,
        );
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    this.working.set(run.id, (this.working.get(run.id) ?? 0) + 1);
    try {
      const { retryAfterMs } = await this.loop.drive(run, owner, lost.signal, handBack);
      if (retryAfterMs !== undefined || this.stopping.signal.aborted)
        await this.queue.release(run.id, owner, retryAfterMs ?? 0).catch((err: unknown) =>
          // The database down too: the run stays RUNNING under this owner until its lease, no longer renewed once this
          // returns, expires; then any worker (of any instance) claims it and continues it from its checkpoint.
          this.logger.warn(
            `run ${run.id} could not go back to the queue (${databaseErrorCode(err)}); it continues once its lease expires, within ${this.leaseMs} ms`,
          ),
        );
    } finally {
      const left = (this.working.get(run.id) ?? 1) - 1;
      if (left > 0) this.working.set(run.id, left);
      else this.working.delete(run.id);
      clearInterval(renewal);
      this.stopping.signal.removeEventListener('abort', onStop);
    }
  }

  private get leaseMs(): number {
    return this.config.agentLoop.runLeaseMs;
  }
}
