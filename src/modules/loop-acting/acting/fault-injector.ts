import { Inject, Injectable, Logger } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';

/** Points in the acting step where the crash-matrix tests kill the process. */
const FAULT_POINTS = ['before-started', 'after-started', 'during-call', 'after-call', 'after-completed'] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

/**
 * TEST ONLY. With GATEWAY_FAULT_INJECTION="<point>[:<toolName>[:<ms>]]" (refused in production by config validation)
 * the process SIGKILLs itself when a call of that tool reaches the point, so tests can prove what survives.
 * Without the variable every method is a no-op.
 */
@Injectable()
export class FaultInjector {
  private readonly logger = new Logger(FaultInjector.name);
  private readonly point: FaultPoint | null;
  private readonly toolName: string | null;
  /** For during-call: how long after the hand-off to the executor the process dies. */
  private readonly delayMs: number;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    const [point, toolName, delay] = config.faultInjection.split(':');
    this.point = (FAULT_POINTS as readonly string[]).includes(point) ? (point as FaultPoint) : null;
    this.toolName = toolName || null;
    this.delayMs = Number(delay) > 0 ? Number(delay) : 150;
  }

  reach(point: FaultPoint, toolName: string): void {
    if (this.point !== point || (this.toolName && this.toolName !== toolName)) return;
    this.logger.warn(`Fault injection: killing the process at ${point} (${toolName})`);
    process.kill(process.pid, 'SIGKILL');
  }

  /** For `during-call`: kills the process shortly after the call was handed to the executor. */
  armDuringCall(toolName: string): NodeJS.Timeout | null {
    if (this.point !== 'during-call' || (this.toolName && this.toolName !== toolName)) return null;
    return setTimeout(() => this.reach('during-call', toolName), this.delayMs);
  }
}
