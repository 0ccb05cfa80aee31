import { builtinRefusal, isPlatformBuiltin } from '@app/modules/executors/call-path/builtin-call';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';
import { CallTargetRegistry } from '@app/modules/executors/call-path/call-target.registry';
import type { ToolCallContext, ToolDispatcher } from '@app/modules/executors/call-path/tool-call.types';
import type { ToolOutput } from '@app/modules/executors/tool-executor';
import { VisibilitySnapshotService } from '@app/modules/agent-config/visibility/visibility-snapshot.service';
import { nameKeyOf } from '@app/common/name-key';
import { KnowledgeBasesRepository } from './knowledge-bases.repository';
import { KnowledgeSearchService } from './knowledge-search.service';
import { SEARCH_DEFAULT_TOP_K, type KnowledgeSearchHit } from './knowledge-bases.types';
import { RAG_SEARCH_TOOL, RAG_SEARCH_TOOL_NAME } from './rag-search.definition';

type RagHit = KnowledgeSearchHit & { knowledgeBase: string };

/**
 * RAG_SEARCH on the call path: searches the knowledge bases bound to the calling agent (only those, and only of
 * the agent's tenant), or the one named by `knowledgeBase`. Several bases: each gives its best `topK`, merged by
 * score. The content the model reads is the JSON `{results: [...]}`.
 */
@Injectable()
export class RagSearchDispatcher implements ToolDispatcher, OnModuleInit {
  readonly name = 'rag-search';
  readonly priority = 110;

  constructor(
    private readonly targets: CallTargetRegistry,
    private readonly catalog: BuiltinToolCatalog,
    private readonly snapshots: VisibilitySnapshotService,
    private readonly bases: KnowledgeBasesRepository,
    private readonly searcher: KnowledgeSearchService,
  ) {}

  onModuleInit(): void {
    this.catalog.register([RAG_SEARCH_TOOL]);
    this.targets.registerDispatcher(this);
  }

  handles(tool: ToolDescriptor): boolean {
    return isPlatformBuiltin(tool, [RAG_SEARCH_TOOL_NAME]);
  }

  async dispatch(
    _tool: ToolDescriptor,
    args: Record<string, unknown>,
    ctx: ToolCallContext,
    signal: AbortSignal,
  ): Promise<ToolOutput> {
    if (!ctx.agentId || !ctx.tenantId)
      throw builtinRefusal('RAG_SEARCH searches the knowledge bases of an agent of a tenant');
    // The agent as the call's visibility check saw it (the view act confirmed for this request, no new read).
    const view = await this.snapshots.tenantView(ctx.tenantId, ctx.freshSince);
    const agent = (await this.snapshots.agentView(view, ctx.agentId))?.agent;
    if (!agent) throw builtinRefusal(`agent ${ctx.agentId} is not in tenant ${ctx.tenantId}`);
    let bases = await this.bases.findBasesOfTenant(agent.tenantId, agent.knowledgeBaseIds ?? []);
    if (bases.length === 0) throw builtinRefusal('no knowledge base is bound to this agent');
    if (typeof args.knowledgeBase === 'string') {
      const wanted = nameKeyOf(args.knowledgeBase);
      const named = bases.filter((b) => b.nameKey === wanted);
      if (named.length === 0) {
        throw builtinRefusal(
          `no knowledge base named ${args.knowledgeBase} is bound to this agent; use one of: ${bases.map((b) => b.name).join(', ')}`,
        );
      }
      bases = named;
    }
    const query = String(args.query);
    const topK = typeof args.topK === 'number' ? args.topK : SEARCH_DEFAULT_TOP_K;
    const settled = await Promise.allSettled(bases.map((b) => this.searcher.search(b, query, topK, signal)));
    const failed = settled.flatMap((s, i) =>
      s.status === 'rejected' ? [{ base: bases[i], reason: s.reason as unknown }] : [],
    );
    if (failed.length === bases.length) throw failed[0].reason;
    const results: RagHit[] = settled
      .flatMap((s, i) =>
        s.status === 'fulfilled' ? s.value.map((hit) => ({ ...hit, knowledgeBase: bases[i].name })) : [],
      )
      .sort((a, b) => b.score - a.score)
      .slice(0, topK);
    const unavailable = failed.map((f) => f.base.name);
    const answer = unavailable.length > 0 ? { results, unavailable } : { results };
    return { content: JSON.stringify(answer), structured: answer };
  }
}
