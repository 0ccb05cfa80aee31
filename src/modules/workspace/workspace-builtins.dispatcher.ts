import {
  builtinOutsideSession,
  builtinRefusal,
  isPlatformBuiltin,
} from '@app/modules/executors/call-path/builtin-call';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { inlineLimitOf, pageWithin } from '@app/modules/loop-acting/results/tool-result.view';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';
import { CallTargetRegistry } from '@app/modules/executors/call-path/call-target.registry';
import type { ToolCallContext, ToolDispatcher } from '@app/modules/executors/call-path/tool-call.types';
import type { ToolOutput } from '@app/modules/executors/tool-executor';
import { DomainError } from '@app/common/errors/domain-error';
import { WORKSPACE_BUILTIN_TOOLS } from './workspace-builtins.definitions';
import { WorkspaceFiles } from './workspace-files.service';
import { WorkspaceSessions, type WorkspaceOwner } from './workspace-sessions.service';
import { WorkspaceEvents } from './workspace.events';
import { ArtifactsService } from './artifacts.service';
import { RUN_COMMAND_TOOL } from './workspace-command.definition';
import { WorkspaceCommandRunner } from './workspace-command.runner';
import { WorkspaceGate } from './workspace.gate';
import { WorkspaceMountSources } from './workspace-mount.sources';

type Handler = (
  owner: WorkspaceOwner,
  args: Record<string, unknown>,
  ctx: ToolCallContext,
  signal: AbortSignal,
  deadline: number,
  inlineChars: number,
) => Promise<ToolOutput>;

/**
 * The workspace built-ins on the call path (after the journal claimed the call): each works inside the session's
 * workspace and appends its event. A refusal (bad path, quota, not exactly one match) is a FAILED result the model
 * reads, naming the path and what to do.
 */
@Injectable()
export class WorkspaceBuiltinsDispatcher implements ToolDispatcher, OnModuleInit {
  readonly name = 'workspace-builtins';
  readonly priority = 110;
  private readonly handlers: Record<string, Handler> = {
    LIST_FILES: async (owner, args) => json(await this.files.list(owner.dir, args.path ?? '', args.recursive === true)),
    READ_FILE: async (owner, args, _ctx, _signal, _deadline, inlineChars) => {
      const page = await this.files.read(owner.dir, args.path, Number(args.offset ?? 0), Number(args.limit ?? 4000));
      return json(pageWithin(page, inlineChars));
    },
    WRITE_FILE: async (owner, args, ctx) => {
      const write = await this.files.write(owner.dir, args.path, String(args.content));
      await this.events.fileWritten(owner, write, 'WRITE_FILE', ctx.toolCallId);
      return json(write);
    },
    EDIT_FILE: async (owner, args, ctx) => {
      const write = await this.files.edit(owner.dir, args.path, String(args.oldText), String(args.newText));
      await this.events.fileWritten(owner, write, 'EDIT_FILE', ctx.toolCallId);
      return json(write);
    },
    DELETE_FILE: async (owner, args, ctx) => {
      const deleted = await this.files.delete(owner.dir, args.path);
      await this.events.fileDeleted(owner, deleted.path, deleted.type, ctx.toolCallId);
      return json(deleted);
    },
    PUBLISH_FILE: async (owner, args) => {
      const title = typeof args.title === 'string' ? args.title : null;
      const artifact = await this.artifacts.publish(owner, owner.dir, args.path, title);
      return json({
        artifactId: artifact.artifactId,
        name: artifact.name,
        size: artifact.size,
        sha256: artifact.sha256,
      });
    },
    RUN_COMMAND: async (owner, args, ctx, signal, deadline) =>
      this.commands.run(
        owner,
        String(args.command),
        typeof args.timeoutMs === 'number' ? args.timeoutMs : undefined,
        await this.mounts.mountsFor(owner),
        ctx.toolCallId,
        signal,
        deadline,
        ctx.log,
      ),
  };
  private readonly names: ReadonlySet<string> = new Set(Object.keys(this.handlers));

  constructor(
    private readonly catalog: BuiltinToolCatalog,
    private readonly targets: CallTargetRegistry,
    private readonly sessions: WorkspaceSessions,
    private readonly files: WorkspaceFiles,
    private readonly events: WorkspaceEvents,
    private readonly artifacts: ArtifactsService,
    private readonly commands: WorkspaceCommandRunner,
    private readonly mounts: WorkspaceMountSources,
    private readonly gate: WorkspaceGate,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onModuleInit(): void {
    this.catalog.register([...WORKSPACE_BUILTIN_TOOLS, RUN_COMMAND_TOOL]);
    this.targets.registerDispatcher(this);
  }

  handles(tool: ToolDescriptor): boolean {
    return isPlatformBuiltin(tool, this.names);
  }

  async dispatch(
    tool: ToolDescriptor,
    args: Record<string, unknown>,
    ctx: ToolCallContext,
    signal: AbortSignal,
    deadline: number,
  ): Promise<ToolOutput> {
    if (!ctx.sessionId || !ctx.tenantId) {
      // The capability the tool requires: a FILE_ROOM session does not offer RUN_COMMAND.
      const capability = tool.name === RUN_COMMAND_TOOL.name ? 'SANDBOX' : 'FILE_ROOM';
      throw builtinOutsideSession(tool.name, capability);
    }
    const owner = await this.sessions.forCall(ctx.tenantId, ctx.sessionId);
    const inlineChars = inlineLimitOf(tool, this.config.resultDefaultMaxInlineChars);
    const work = () => this.handlers[tool.name](owner, args, ctx, signal, deadline, inlineChars);
    // A call whose budget ran out while it waited has been answered FAILED already: it must change nothing after.
    const unlessEnded = () => {
      if (signal.aborted)
        throw builtinRefusal(`${tool.name} ended while it waited for a command in the workspace; nothing was done`);
      return work();
    };
    try {
      // RUN_COMMAND takes the workspace for its command itself; file tools wait while one runs (see WorkspaceGate).
      return await (tool.name === RUN_COMMAND_TOOL.name ? work() : this.gate.run(owner.dir, 'files', unlessEnded));
    } catch (err) {
      if (err instanceof DomainError) throw builtinRefusal(err.message);
      throw err;
    }
  }
}

function json(value: unknown): ToolOutput {
  return { content: JSON.stringify(value), structured: value };
}
