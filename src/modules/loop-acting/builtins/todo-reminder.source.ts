import { Injectable, OnModuleInit } from '@nestjs/common';
import { SessionRemindersRegistry } from '@app/modules/agent-config/reminders/session-reminders.registry';
import type { AgentSessionEntity } from '../sessions/agent-session.entity';

/** Open items a reminder lists at most (each up to 500 characters, UPDATE_TODO_LIST's schema). */
export const TODO_REMINDER_MAX_ITEMS = 20;

/**
 * The reminder of the session's todo list while it has open items: a long run whose oldest turns no longer fit the
 * model's context window (the UPDATE_TODO_LIST calls among them) still sees its plan in every round.
 */
@Injectable()
export class TodoReminderSource implements OnModuleInit {
  constructor(private readonly reminders: SessionRemindersRegistry) {}

  onModuleInit(): void {
    this.reminders.register((session) => Promise.resolve(todoReminders(session)));
  }
}

export function todoReminders(session: Pick<AgentSessionEntity, 'todoList'>): string[] {
  const items = session.todoList ?? [];
  const open = items.filter((item) => item.status !== 'completed');
  if (open.length === 0) return [];
  const shown = open.slice(0, TODO_REMINDER_MAX_ITEMS).map((item) => `- [${item.status}] ${item.content}`);
  const more = open.length - shown.length;
  const done = items.length - open.length;
  return [
    `Your todo list (keep it current with UPDATE_TODO_LIST): ${open.length} open, ${done} completed.\n` +
      shown.join('\n') +
      (more > 0 ? `\n(${more} more open items not shown)` : ''),
  ];
}
