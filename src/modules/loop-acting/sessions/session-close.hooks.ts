import { Injectable, Logger } from '@nestjs/common';

/** A session that was just closed, as the close hooks see it. */
export interface ClosedSession {
  tenantId: string;
  id: string;
}

/**
 * What other modules do when a session is closed with DELETE /sessions/{id} (the workspace module removes the
 * workspace). Modules register in their `onModuleInit`, so loop-acting imports none of them. A failing hook is
 * logged and does not undo the close: retention removes what is left.
 */
@Injectable()
export class SessionCloseHooks {
  private readonly logger = new Logger(SessionCloseHooks.name);
  private readonly hooks: Array<{ name: string; run: (session: ClosedSession) => Promise<void> }> = [];

  register(name: string, run: (session: ClosedSession) => Promise<void>): void {
    this.hooks.push({ name, run });
  }

  async closed(session: ClosedSession): Promise<void> {
    for (const hook of this.hooks) {
      await hook
        .run(session)
        .catch((err: unknown) =>
          this.logger.warn(`Close hook ${hook.name} failed for session ${session.id}: ${(err as Error).message}`),
        );
    }
  }
}
