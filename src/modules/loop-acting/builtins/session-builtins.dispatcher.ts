import {
  builtinOutsideSession,
  builtinRefusal,
  isPlatformBuiltin,
} from '@app/modules/executors/call-path/builtin-call';
import { Injectable, OnModuleInit } from '@nestjs/common';
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
import { readOnArguments } from '../results/tool-result.view';
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
  ) {}

  onModuleInit(): void {
    this.targets.registerDispatcher(this);
  }

  handles(tool: ToolDescriptor): boolean {
    return isPlatformBuiltin(tool, HANDLED);
  }

  async dispatch(tool: ToolDescriptor, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolOutput> {
    if (!ctx.sessionId) throw builtinOutsideSession(tool.name);
    return tool.name === READ_TOOL_RESULT_TOOL_NAME ? this.readToolResult(ctx, args) : this.updateTodoList(ctx, args);
  }

  private async readToolResult(ctx: ToolCallContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const offset = Number(args.offset ?? 0);
    const limit = Number(args.limit ?? 4000);
    try {
      const page = await this.results.page(
        { tenantId: ctx.tenantId },
        ctx.sessionId!,
        String(args.toolCallId),
        offset,
        limit,
      );
      const end = page.offset + page.content.length;
      const note = page.hasMore
        ? `\n\n[characters ${page.offset}-${end} of ${page.totalChars}; read on with ${readOnArguments(page.toolCallId, end)}]`
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
