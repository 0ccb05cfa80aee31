import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { IntervalJob } from '@app/common/scheduling/interval.job';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { AgentRunQueue } from './agent-run.queue';
import { AgentRunNotifier } from './agent-run.notifier';

/** Name of the interval in Nest's SchedulerRegistry. */
export const AGENT_RUN_WAKER_JOB = 'agent-run-waker';

/**
 * Every RUN_POLL_INTERVAL_MS, on an instance that works runs (TASK_WORKERS > 0), queues again the runs stopped for a
 * human whose decision arrived (on any instance), and wakes this instance's idle workers when it did. On a timer of its
 * own: when a worker did it between two runs, a decision waited for that worker's run to end (minutes of model rounds)
 * while the other workers sat idle.
 */
@Injectable()
export class AgentRunWaker extends IntervalJob {
  constructor(
    private readonly queue: AgentRunQueue,
    private readonly notifier: AgentRunNotifier,
    scheduler: SchedulerRegistry,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    super(scheduler, AGENT_RUN_WAKER_JOB, config.agentLoop.taskWorkers > 0 ? config.agentLoop.pollIntervalMs : null);
  }

  protected async round(): Promise<void> {
    if ((await this.queue.wakeDecided()) > 0) this.notifier.queued();
  }
}
