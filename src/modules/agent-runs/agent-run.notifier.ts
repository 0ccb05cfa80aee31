import { Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';

/**
 * In-process nudges, never the source of truth (the database is): a new run wakes this instance's idle workers
 * at once, and a run that stops here wakes the requests waiting on it (others find out by polling).
 */
@Injectable()
export class AgentRunNotifier {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  queued(): void {
    this.emitter.emit('queued');
  }

  stopped(runId: string): void {
    this.emitter.emit(`stopped:${runId}`);
  }

  /** Resolves at the next `queued()` or after `ms`. */
  nextQueued(ms: number, signal: AbortSignal): Promise<void> {
    return this.once('queued', ms, signal);
  }

  /** Resolves when `runId` stops on this instance or after `ms`. */
  nextStop(runId: string, ms: number, signal?: AbortSignal): Promise<void> {
    return this.once(`stopped:${runId}`, ms, signal);
  }

  private once(event: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(event, done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.emitter.on(event, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
