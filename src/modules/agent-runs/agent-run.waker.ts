import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { AgentRunQueue } from './agent-run.queue';
import { AgentRunNotifier } from './agent-run.notifier';

/**
 * Every RUN_POLL_INTERVAL_MS, on an instance that works runs (TASK_WORKERS > 0), queues again the runs stopped for a
 * human whose decision arrived (on any instance), and wakes this instance's idle workers when it did. On a timer of its
 * own: when a worker did it between two runs, a decision waited for that worker's run to end (minutes of model rounds)
 * while the other workers sat idle.
 */
@Injectable()
export class AgentRunWaker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AgentRunWaker.name);
  private readonly stopping = new AbortController();
  private waking: Promise<void> = Promise.resolve();

  constructor(
    private readonly queue: AgentRunQueue,
    private readonly notifier: AgentRunNotifier,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.agentLoop.taskWorkers > 0) this.waking = this.wakeUntilStopped();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping.abort();
    await this.waking;
  }

  private async wakeUntilStopped(): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted) {
      try {
        if ((await this.queue.wakeDecided()) > 0) this.notifier.queued();
      } catch (err) {
        if (signal.aborted) return;
        this.logger.warn(`run queue unavailable: ${(err as Error).message}`);
      }
      await sleep(this.config.agentLoop.pollIntervalMs, undefined, { signal }).catch(() => undefined);
    }
  }
}
