import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';

/**
 * Bounds a shutdown by signal (SIGTERM, SIGINT) to SHUTDOWN_GRACE_MS from when Nest starts closing the HTTP server:
 * past it, requests still running (a slow tool call, a long wait for a sub-agent) are not waited for, and the process
 * exits at once, as a crash would. That is safe by design: a call left STARTED is recovered from the journal (a
 * side-effecting one goes to the HITL queue once its lease ends, never run again blindly). Tearing the pools down
 * under the calls instead would make them fail with a made-up error although the remote may have done the work.
 * A shutdown by `app.close()` (tests, embedding) is not bounded here.
 */
@Injectable()
export class ShutdownDeadline implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  private timer?: NodeJS.Timeout;

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  beforeApplicationShutdown(signal?: string): void {
    if (!signal) return;
    const graceMs = this.config.shutdownGraceMs;
    this.logger.log(`${signal}: finishing the requests in flight (at most SHUTDOWN_GRACE_MS, ${graceMs} ms)`);
    this.timer = setTimeout(() => {
      this.logger.error(
        `Requests were still running SHUTDOWN_GRACE_MS (${graceMs} ms) after ${signal}: exiting now. Their tool calls are recovered from the journal as after a crash.`,
      );
      process.exit(1);
    }, graceMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearTimeout(this.timer);
  }
}
