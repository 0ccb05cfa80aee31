import { Injectable } from '@nestjs/common';
import type { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';

/** Text a feature wants before the session's next model round (the active skill, finished sub-agent tasks). */
export type SessionReminderSource = (session: AgentSessionEntity) => Promise<string[]>;

/**
 * The reminders of `tool-specs` with a `sessionId`: each feature registers a source in its `onModuleInit`;
 * the answer's `reminders` are every source's strings, in registration order.
 */
@Injectable()
export class SessionRemindersRegistry {
  private readonly sources: SessionReminderSource[] = [];

  register(source: SessionReminderSource): void {
    this.sources.push(source);
  }

  async remindersFor(session: AgentSessionEntity): Promise<string[]> {
    const all = await Promise.all(this.sources.map((source) => source(session)));
    return all.flat();
  }
}
