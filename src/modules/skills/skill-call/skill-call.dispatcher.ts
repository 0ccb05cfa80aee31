import { builtinRefusal, isPlatformBuiltin } from '@app/modules/executors/call-path/builtin-call';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';
import { CallTargetRegistry } from '@app/modules/executors/call-path/call-target.registry';
import type { ToolCallContext, ToolDispatcher } from '@app/modules/executors/call-path/tool-call.types';
import type { ToolOutput } from '@app/modules/executors/tool-executor';
import { AgentSessionRepository } from '@app/modules/loop-acting/sessions/agent-session.repository';
import type { AgentSessionEntity } from '@app/modules/loop-acting/sessions/agent-session.entity';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { SkillsRepository } from '../skills.repository';
import type { SkillEntity } from '../skill.entity';
import { canRead } from '../skill-access';
import { entryPathProblem } from '../skill-package.rules';
import { SKILL_ENTRY_FILE } from '../skill-package.types';
import { chooseSkill } from './skill-call.chooser';
import { SKILL_CALL_DEFAULT_LIMIT, SKILL_CALL_DEFINITION, SKILL_CALL_TOOL_NAME } from './skill-call.definition';
import { SKILL_MD_MAX_CHARS, skillAnswer, skillRoot } from './skill-call.answer';
import { inlineLimitOf, pageBounds, pageWithin } from '@app/modules/loop-acting/results/tool-result.view';

interface SkillCallArgs {
  skill?: string;
  path?: string;
  offset?: number;
  limit?: number;
}

/**
 * SKILL_CALL: picks a bound skill, answers with its current release's SKILL.md and file index (or a slice of one
 * file), and makes it the session's active skill (a `skill.activated` event when it changes).
 */
@Injectable()
export class SkillCallDispatcher implements ToolDispatcher, OnModuleInit {
  readonly name = 'skill-call';
  readonly priority = 100;

  constructor(
    private readonly targets: CallTargetRegistry,
    private readonly catalog: BuiltinToolCatalog,
    private readonly sessions: AgentSessionRepository,
    private readonly agents: AgentConfigService,
    private readonly skills: SkillsRepository,
    private readonly events: SessionEventsStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onModuleInit(): void {
    this.catalog.register([SKILL_CALL_DEFINITION]);
    this.targets.registerDispatcher(this);
  }

  handles(tool: ToolDescriptor): boolean {
    return isPlatformBuiltin(tool, [SKILL_CALL_TOOL_NAME]);
  }

  async dispatch(tool: ToolDescriptor, raw: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolOutput> {
    const args = raw as SkillCallArgs;
    const session = ctx.sessionId ? await this.sessions.find(ctx.sessionId) : null;
    if (!session || session.tenantId !== ctx.tenantId) throw builtinRefusal('SKILL_CALL works only inside a session');
    const choice = chooseSkill(args.skill, session.task, await this.boundSkills(session));
    if (choice.kind === 'not-bound') throw builtinRefusal(choice.message);
    if (choice.kind === 'list') return { content: choice.message, structured: { candidates: choice.candidates } };
    const { skill, reason } = choice;
    const version = skill.currentVersion!;
    const files = await this.skills.fileIndex(skill.id, version);
    if (files.length === 0)
      throw builtinRefusal(`skill ${skill.name} has no readable release; ask an admin to publish one`);
    const offerFiles = session.capabilities.includes('SANDBOX') && files.length > 1;
    const output =
      args.path === undefined
        ? await this.readSkill(skill, version, reason, files, offerFiles)
        : await this.readFile(
            skill,
            version,
            args,
            offerFiles,
            inlineLimitOf(tool, this.config.resultDefaultMaxInlineChars),
          );
    await this.activate(session, skill, version, reason);
    return output;
  }

  /** The agent's skills this tenant may use, with a published release; a tenant's own before an official namesake. */
  private async boundSkills(session: AgentSessionEntity): Promise<SkillEntity[]> {
    const agent = await this.agents.loadAgent({ tenantId: session.tenantId }, session.agentId);
    const rows = (await this.skills.findSkills(agent.skillIds ?? [])).filter(
      (s) => s.currentVersion !== null && canRead(session.tenantId, s),
    );
    rows.sort((a, b) => (a.tenantId === null ? 1 : 0) - (b.tenantId === null ? 1 : 0) || a.name.localeCompare(b.name));
    const byName = new Map<string, SkillEntity>();
    for (const s of rows) if (!byName.has(s.name)) byName.set(s.name, s);
    return [...byName.values()];
  }

  private async readSkill(
    skill: SkillEntity,
    version: number,
    reason: string,
    files: Awaited<ReturnType<SkillsRepository['fileIndex']>>,
    offerFiles: boolean,
  ): Promise<ToolOutput> {
    const entry = files.find((f) => f.path === SKILL_ENTRY_FILE);
    const totalChars = entry?.totalChars ?? 0;
    const { content: skillMd } = await this.page(
      skill.id,
      version,
      SKILL_ENTRY_FILE,
      0,
      SKILL_MD_MAX_CHARS,
      totalChars,
    );
    const content = skillAnswer({
      name: skill.name,
      version,
      reason,
      skillMd,
      skillMdChars: entry?.totalChars ?? skillMd.length,
      files,
      offerFiles,
    });
    return { content, structured: { skill: skill.name, version, reason, fileCount: files.length } };
  }

  private async readFile(
    skill: SkillEntity,
    version: number,
    args: SkillCallArgs,
    offerFiles: boolean,
    inlineChars: number,
  ): Promise<ToolOutput> {
    const root = `${skillRoot(skill.name)}/`;
    const path = args.path!.startsWith(root) ? args.path!.slice(root.length) : args.path!;
    const problem = entryPathProblem(path);
    if (problem) throw builtinRefusal(`${problem}; give a path inside the skill, e.g. ${SKILL_ENTRY_FILE}`);
    if (!offerFiles && path !== SKILL_ENTRY_FILE)
      throw builtinRefusal(`only SKILL.md exists for this session; ${path} is not available here`);
    const found = await this.skills.fileInfo(skill.id, version, path);
    const info = found?.path === path ? found : null; // exact on every database (MySQL compares case-insensitively)
    if (!info)
      throw builtinRefusal(
        `skill ${skill.name} (release ${version}) has no file ${path}; call SKILL_CALL without path for the index`,
      );
    const offset = Math.min(args.offset ?? 0, info.totalChars);
    const limit = args.limit ?? SKILL_CALL_DEFAULT_LIMIT;
    const slice = await this.page(skill.id, version, path, offset, limit, info.totalChars);
    const page = pageWithin(
      {
        path,
        offset: slice.offset,
        limit,
        totalChars: info.totalChars,
        hasMore: slice.hasMore,
        content: slice.content,
      },
      inlineChars,
    );
    return { content: JSON.stringify(page), structured: { ...page, content: undefined } };
  }

  /**
   * At most `limit` characters of a file from `offset`, cut as READ_FILE cuts its pages (pageBounds): an offset inside
   * a surrogate pair starts at the pair, a page ends before a pair it would cut (a lone half reaches the model as
   * U+FFFD). Reads one character more on each side to see the pairs.
   */
  private async page(
    skillId: string,
    version: number,
    path: string,
    offset: number,
    limit: number,
    totalChars: number,
  ): Promise<{ offset: number; content: string; hasMore: boolean }> {
    const from = Math.max(0, offset - 1);
    const window = await this.skills.fileSlice(skillId, version, path, from, offset - from + limit + 1);
    const { start, end } = pageBounds(window, offset - from, limit);
    return { offset: from + start, content: window.slice(start, end), hasMore: from + end < totalChars };
  }

  private async activate(
    session: AgentSessionEntity,
    skill: SkillEntity,
    version: number,
    reason: string,
  ): Promise<void> {
    const current = session.activeSkill;
    if (current?.skillId === skill.id && current.version === version) return;
    const root = skillRoot(skill.name);
    const active = { skillId: skill.id, name: skill.name, version, root, entryPath: `${root}/${SKILL_ENTRY_FILE}` };
    await this.skills.transaction(async (m) => {
      await this.sessions.setActiveSkill(session.id, active, m);
      await this.events.append(
        {
          tenantId: session.tenantId,
          sessionId: session.id,
          type: 'skill.activated',
          data: { ...active, reason },
        },
        m,
      );
    });
  }
}
