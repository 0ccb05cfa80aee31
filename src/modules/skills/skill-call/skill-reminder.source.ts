import { Injectable, OnModuleInit } from '@nestjs/common';
import { SessionRemindersRegistry } from '@app/modules/agent-config/reminders/session-reminders.registry';
import type { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';
import { ActiveSkillBinding } from './active-skill.binding';

/** The reminder of the session's active skill (while its agent has it bound), for the next model round. */
@Injectable()
export class SkillReminderSource implements OnModuleInit {
  constructor(
    private readonly reminders: SessionRemindersRegistry,
    private readonly binding: ActiveSkillBinding,
  ) {}

  onModuleInit(): void {
    this.reminders.register(async (session) =>
      skillReminders({ ...session, activeSkill: await this.binding.of(session) }),
    );
  }
}

export function skillReminders(session: Pick<AgentSessionEntity, 'activeSkill' | 'capabilities'>): string[] {
  const skill = session.activeSkill;
  if (!skill) return [];
  const release = skill.version === undefined ? '' : ` (release ${skill.version})`;
  const files = session.capabilities.includes('SANDBOX')
    ? ` Its files are read-only at ${skill.root}; run its scripts only through RUN_COMMAND.`
    : '';
  return [
    `Active skill: ${skill.name}${release}. Follow the instructions of ${skill.entryPath} ` +
      `(SKILL_CALL {"skill":"${skill.name}"} shows them again).${files}`,
  ];
}
