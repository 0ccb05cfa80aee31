import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { AgentRunQueue } from './agent-run.queue';
import { AgentRunLoop } from './agent-run.loop';
import { AgentRunNotifier } from './agent-run.notifier';
import type { AgentRunEntity } from './agent-run.entity';

/**
 * TASK_WORKERS loops per instance that take runs from the shared queue and work them while renewing their lease.
 * An idle loop also queues again the runs whose human decision arrived (on any instance). On shutdown the
 * loops stop and give their runs back to the queue; after a crash the lease expires and any instance continues.
 */
@Injectable()
export class AgentRunWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AgentRunWorker.name);
  private readonly stopping = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly queue: AgentRunQueue,
    private readonly loop: AgentRunLoop,
    private readonly notifier: AgentRunNotifier,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    const { taskWorkers } = this.config.agentLoop;
    this.loops = Array.from({ length: taskWorkers }, (_, i) => this.runLoop(`${this.config.instanceId}#${i}`, i === 0));
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.loops);
  }

  /** `waker`: this loop (one per instance) also queues again the runs whose human decision arrived. */
  private async runLoop(owner: string, waker: boolean): Promise<void> {
    const { pollIntervalMs } = this.config.agentLoop;
    while (!this.stopping.signal.aborted) {
      let run: AgentRunEntity | null = null;
      try {
        if (waker) await this.queue.wakeDecided();
        run = await this.queue.claim(owner, this.leaseMs);
      } catch (err) {
        if (this.stopping.signal.aborted) return;
        this.logger.warn(`run queue unavailable: ${(err as Error).message}`);
      }
      if (run) await this.work(run, owner);
      else await this.notifier.nextQueued(pollIntervalMs, this.stopping.signal);
    }
  }

  private async work(run: AgentRunEntity, owner: string): Promise<void> {
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
    try {
      const { retryAfterMs } = await this.loop.drive(run, owner, lost.signal);
      if (retryAfterMs !== undefined || this.stopping.signal.aborted)
        await this.queue.release(run.id, owner, retryAfterMs ?? 0).catch(() => undefined);
    } finally {
      clearInterval(renewal);
      this.stopping.signal.removeEventListener('abort', onStop);
    }
  }

  private get leaseMs(): number {
    return this.config.agentLoop.runLeaseMs;
  }
}
