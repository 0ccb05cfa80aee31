import { Inject, Injectable, Logger } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import type { NewSessionEvent } from './session-event.types';

/** The point of GATEWAY_FAULT_INJECTION this class acts on. */
const POINT = 'before-event-write';

/**
 * TEST ONLY. With GATEWAY_FAULT_INJECTION="before-event-write:<event type>" (refused in production by config
 * validation) the process SIGKILLs itself when the event writer is about to write an event of that type: the state it
 * describes is committed, the event is not written yet. Crash tests prove with it that no event is lost there.
 * Without the variable {@link reach} is a no-op.
 */
@Injectable()
export class SessionEventWriteFault {
  private readonly logger = new Logger(SessionEventWriteFault.name);
  private readonly type: string | null;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    const [point, type] = config.faultInjection.split(':');
    this.type = point === POINT && type ? type : null;
  }

  /** Called with each batch the writer is about to write. */
  reach(batch: readonly { event: NewSessionEvent }[]): void {
    if (!this.type || !batch.some((p) => p.event.type === this.type)) return;
    this.logger.warn(`Fault injection: killing the process at ${POINT} (${this.type})`);
    process.kill(process.pid, 'SIGKILL');
  }
}
