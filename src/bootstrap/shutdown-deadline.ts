import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';

/**
 * Bounds a shutdown to SHUTDOWN_GRACE_MS from when Nest starts closing the HTTP server: past it, requests still
 * running (a slow tool call, a long wait for a sub-agent, an upload that never ends) are not waited for.
 *
 * By signal (SIGTERM, SIGINT) the process exits at once, as a crash would. That is safe by design: a call left
 * STARTED is recovered from the journal (a side-effecting one goes to the HITL queue once its lease ends, never run
 * again blindly). Tearing the pools down under the calls instead would make them fail with a made-up error although
 * the remote may have done the work.
 *
 * By `app.close()` (tests, an application embedding the module) the process is not this class's to end: the
 * connections still open are closed instead, as if their clients had gone, so the close goes on and resolves (a
 * call that stops when its client goes, a read-only or idempotent one, is cancelled; the rest of its batch does not
 * start).
 */
@Injectable()
export class ShutdownDeadline implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  beforeApplicationShutdown(signal?: string): void {
    const graceMs = this.config.shutdownGraceMs;
    const cause = signal ?? 'app.close()';
    this.logger.log(`${cause}: finishing the requests in flight (at most SHUTDOWN_GRACE_MS, ${graceMs} ms)`);
    this.timer = setTimeout(() => {
      if (signal) {
        this.logger.error(
          `Requests were still running SHUTDOWN_GRACE_MS (${graceMs} ms) after ${signal}: exiting now. Their tool calls are recovered from the journal as after a crash.`,
        );
        process.exit(1);
      }
      this.logger.error(
        `Requests were still running SHUTDOWN_GRACE_MS (${graceMs} ms) after app.close(): closing their connections, as if their clients had gone.`,
      );
      (this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined)?.closeAllConnections();
    }, graceMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearTimeout(this.timer);
  }
}
