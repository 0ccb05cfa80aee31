import {
  builtinOutsideSession,
  builtinRefusal,
  isPlatformBuiltin,
} from '@app/modules/executors/call-path/builtin-call';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import {
  READ_TOOL_RESULT_TOOL_NAME,
  UPDATE_TODO_LIST_TOOL_NAME,
  type ToolDescriptor,
} from '@app/modules/tool-registry/tool-registry.types';
import { CallTargetRegistry } from '@app/modules/executors/call-path/call-target.registry';
import type { ToolCallContext, ToolDispatcher } from '@app/modules/executors/call-path/tool-call.types';
import type { ToolOutput } from '@app/modules/executors/tool-executor';
import { DomainError } from '@app/common/errors/domain-error';
import { ToolResultReader } from '../results/tool-result.reader';
import { inlineLimitOf, readOnArguments } from '../results/tool-result.view';
import { AgentSessionRepository } from '../sessions/agent-session.repository';
import type { TodoItem } from '../sessions/session.types';
import { SessionEventsStore } from '@app/modules/session-events/session-events.store';

const HANDLED = new Set([READ_TOOL_RESULT_TOOL_NAME, UPDATE_TODO_LIST_TOOL_NAME]);

/**
 * Session built-ins, first on the call path: READ_TOOL_RESULT pages a stored result of the same session;
 * UPDATE_TODO_LIST replaces the session's todo list (shown by GET /sessions/{id}).
 */
@Injectable()
export class SessionBuiltinsDispatcher implements ToolDispatcher, OnModuleInit {
  readonly name = 'session-builtins';
  readonly priority = 100;

  constructor(
    private readonly targets: CallTargetRegistry,
    private readonly results: ToolResultReader,
    private readonly sessions: AgentSessionRepository,
    private readonly events: SessionEventsStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onModuleInit(): void {
    this.targets.registerDispatcher(this);
  }

  handles(tool: ToolDescriptor): boolean {
    return isPlatformBuiltin(tool, HANDLED);
  }

  async dispatch(tool: ToolDescriptor, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolOutput> {
    if (!ctx.sessionId) throw builtinOutsideSession(tool.name);
    return tool.name === READ_TOOL_RESULT_TOOL_NAME
      ? this.readToolResult(tool, ctx, args)
      : this.updateTodoList(ctx, args);
  }

  /**
   * A page of the result with a note saying where to read on, the two together within what this call's own result
   * shows inline (as CallRunner cuts it): a page of the 20,000 characters the schema allows came back cut at the
   * default RESULT_DEFAULT_MAX_INLINE_CHARS (20,000), its note lost and the model told to page the page instead.
   */
  private async readToolResult(
    tool: ToolDescriptor,
    ctx: ToolCallContext,
    args: Record<string, unknown>,
  ): Promise<ToolOutput> {
    const offset = Number(args.offset ?? 0);
    const toolCallId = String(args.toolCallId);
    const inline = inlineLimitOf(tool, this.config.resultDefaultMaxInlineChars);
    const limit = Math.max(1, Math.min(Number(args.limit ?? 4000), inline - longestNote(toolCallId).length));
    try {
      const page = await this.results.page({ tenantId: ctx.tenantId }, ctx.sessionId!, toolCallId, offset, limit);
      const end = page.offset + page.content.length;
      const note = page.hasMore
        ? readOnNote(page.offset, end, page.totalChars, page.toolCallId)
        : `\n\n[characters ${page.offset}-${end} of ${page.totalChars}; end of result]`;
      return { content: page.content + note, structured: { ...page, content: undefined } };
    } catch (err) {
      // The reader says which calls have a result and what to give instead.
      if (err instanceof DomainError) throw builtinRefusal(err.message);
      throw err;
    }
  }

  private async updateTodoList(ctx: ToolCallContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const sessionId = ctx.sessionId!;
    const items = todoItems(args.items as Array<Partial<TodoItem>>);
    await this.sessions.setTodoList(sessionId, items);
    const done = items.filter((i) => i.status === 'completed').length;
    await this.events.append({
      tenantId: ctx.tenantId ?? '',
      sessionId,
      type: 'todo.updated',
      data: { toolCallId: ctx.toolCallId, items: items.length, completed: done },
    });
    return { content: `Todo list updated: ${items.length} item(s), ${done} completed.`, structured: { items } };
  }
}

function readOnNote(start: number, end: number, totalChars: number, toolCallId: string): string {
  return `\n\n[characters ${start}-${end} of ${totalChars}; read on with ${readOnArguments(toolCallId, end)}]`;
}

/** A note at least as long as any a page of `toolCallId`'s result gets (offsets of the longest a result may be). */
function longestNote(toolCallId: string): string {
  const most = Number.MAX_SAFE_INTEGER;
  return readOnNote(most, most, most, toolCallId);
}

/**
 * The items with an id each, unique in the list (what a client keys them by): an item without one takes its position
 * (1-based), or the next number no other item holds; an id given twice is refused, naming it.
 */
function todoItems(given: Array<Partial<TodoItem>>): TodoItem[] {
  const taken = new Set<string>();
  for (const item of given) {
    if (item.id === undefined) continue;
    if (taken.has(item.id))
      throw builtinRefusal(`todo item id "${item.id}" is given twice; give each item its own id, or none`);
    taken.add(item.id);
  }
  let next = 1;
  const freeId = (): string => {
    while (taken.has(String(next))) next++;
    return String(next);
  };
  return given.map((item, i) => {
    const id = item.id ?? (taken.has(String(i + 1)) ? freeId() : String(i + 1));
    taken.add(id);
    return { id, content: String(item.content), status: item.status ?? 'pending' };
  });
}
