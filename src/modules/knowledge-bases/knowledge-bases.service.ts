import { urlCredentialProblem } from '@app/modules/tool-registry/tool-credential.rules';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '@app/common/auth/auth-context';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import { nameKeyOf } from '@app/common/name-key';
import { pageOf, PageQueryDto, pageWindow } from '@app/common/dto/page.dto';
import { toIso } from '@app/database/epoch-ms.transformer';
import { isUniqueViolation } from '@app/database/unique-violation';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import type { AgentDto } from '@app/modules/agent-config/agent-config.dto';
import { KnowledgeBaseEntity } from './knowledge-base.entity';
import { KnowledgeBasesRepository } from './knowledge-bases.repository';
import { KnowledgeBaseDeletions } from './knowledge-base.deletions';
import { KnowledgeBasesErrorCode } from './knowledge-bases.errors';
import { ToolCallError } from '@app/modules/executors/tool-executor';
import { KnowledgeSearchService } from './knowledge-search.service';
import { SEARCH_DEFAULT_TOP_K } from './knowledge-bases.types';
import type {
  CreateKnowledgeBaseDto,
  KnowledgeBaseDto,
  KnowledgeBasePageDto,
  KnowledgeSearchResponseDto,
  SearchKnowledgeBaseDto,
} from './knowledge-bases.dto';

/**
 * Knowledge bases of a tenant: create, list, read, delete, and which ones an agent's RAG_SEARCH searches.
 * A tenant admin key sees only its tenant's (another tenant's base is 404); the platform key sees all.
 */
@Injectable()
export class KnowledgeBasesService {
  private readonly logger = new Logger(KnowledgeBasesService.name);

  constructor(
    private readonly repo: KnowledgeBasesRepository,
    private readonly deletions: KnowledgeBaseDeletions,
    private readonly agents: AgentConfigService,
    private readonly searcher: KnowledgeSearchService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async create(auth: AuthContext, dto: CreateKnowledgeBaseDto): Promise<KnowledgeBaseDto> {
    if (auth.tenantId !== null && auth.tenantId !== dto.tenantId) {
      throw new DomainError(
        CommonErrorCode.FORBIDDEN,
        `Your admin key is bound to tenant ${auth.tenantId}; create knowledge bases in that tenant.`,
      );
    }
    const url = dto.kind === 'HTTP' ? checkedUrl(dto.url) : null;
    if (dto.kind === 'INTERNAL' && dto.url !== undefined) {
      throw validationFailed([{ field: 'url', problems: ['only an HTTP knowledge base has a url; leave it out'] }]);
    }
    const now = Date.now();
    const row: KnowledgeBaseEntity = {
      id: randomUUID(),
      tenantId: dto.tenantId,
      name: dto.name,
      nameKey: nameKeyOf(dto.name),
      kind: dto.kind,
      url,
      documentCount: 0,
      chunkCount: 0,
      tokenCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.repo.insertBase(row);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      throw new DomainError(
        KnowledgeBasesErrorCode.KNOWLEDGE_BASE_NAME_TAKEN,
        `Tenant ${dto.tenantId} already has a knowledge base named ${dto.name} (names ignore case); pick another name.`,
        { name: dto.name },
      );
    }
    return toKnowledgeBaseDto(row);
  }

  async list(auth: AuthContext, query: PageQueryDto): Promise<KnowledgeBasePageDto> {
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.repo.pageBases(auth.tenantId, skip, take);
    return pageOf(rows.map(toKnowledgeBaseDto), total, query);
  }

  async get(auth: AuthContext, id: string): Promise<KnowledgeBaseDto> {
    return toKnowledgeBaseDto(await this.load(auth, id));
  }

  /**
   * Deletes the base, its documents and index; agents bound to it are unbound before and after (their config changes).
   * The base and its documents go in one transaction, its passages after it (see KnowledgeBaseDeletions): a crash in
   * between leaves no trace of the base but passages no search reads, which the deletion job removes.
   */
  async remove(auth: AuthContext, id: string): Promise<KnowledgeBaseDto> {
    const row = await this.load(auth, id);
    await this.agents.forgetKnowledgeBase(row.tenantId, row.id);
    await this.dataSource.transaction(async (m) => {
      // The base's lock first: a document being added finishes before (its passages are removed with the others), or
      // finds the base gone after; of two deletions at once, the second finds it gone (404).
      if (!(await this.repo.lockBase(m, row.id))) throw notFound(id);
      await this.deletions.start(m, row);
    });
    // The base is deleted: what follows failing is left to the deletion job, which does it again (a 500 here would
    // tell of a deletion that happened, and a retry would get a 404).
    try {
      await this.deletions.finish(row);
    } catch (err) {
      this.logger.warn(
        `knowledge base ${row.id} deleted; the deletion job removes the rest: ${(err as Error).message}`,
      );
    }
    return toKnowledgeBaseDto(row);
  }

  /** Replaces the knowledge bases an agent's RAG_SEARCH searches: each must be of the agent's tenant (else 404). */
  async bindToAgent(auth: AuthContext, agentId: string, knowledgeBaseIds: string[]): Promise<AgentDto> {
    const agent = await this.agents.loadAgent(auth, agentId);
    const unique = [...new Set(knowledgeBaseIds)];
    const found = new Set((await this.repo.findBasesOfTenant(agent.tenantId, unique)).map((b) => b.id));
    const missing = unique.find((id) => !found.has(id));
    if (missing !== undefined) {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No knowledge base ${missing} in tenant ${agent.tenantId}; list them with GET /api/v1/admin/knowledge-bases.`,
        { knowledgeBaseId: missing },
      );
    }
    const bound = await this.agents.setKnowledgeBaseIds(auth, agentId, unique);
    // A base deleted after the check above: its deletion may have unbound its agents before this write, so it is
    // unbound here (the deletion unbinds again once the base is gone, so one of the two sees the other).
    const still = new Set((await this.repo.findBasesOfTenant(agent.tenantId, unique)).map((b) => b.id));
    const deleted = unique.filter((id) => !still.has(id));
    if (deleted.length === 0) return bound;
    for (const id of deleted) await this.agents.forgetKnowledgeBase(agent.tenantId, id);
    throw new DomainError(
      CommonErrorCode.NOT_FOUND,
      `Knowledge base ${deleted[0]} of tenant ${agent.tenantId} was deleted while agent ${agentId} was being bound to it; the agent keeps the others. List them with GET /api/v1/admin/knowledge-bases.`,
      { knowledgeBaseId: deleted[0] },
    );
  }

  /** The admin's search of one base: exactly what RAG_SEARCH returns for it. */
  async search(auth: AuthContext, id: string, dto: SearchKnowledgeBaseDto): Promise<KnowledgeSearchResponseDto> {
    const base = await this.load(auth, id);
    try {
      return { results: await this.searcher.search(base, dto.query, dto.topK ?? SEARCH_DEFAULT_TOP_K) };
    } catch (err) {
      if (!(err instanceof ToolCallError)) throw err;
      throw new DomainError(
        KnowledgeBasesErrorCode.KNOWLEDGE_BASE_UNREACHABLE,
        `Knowledge base ${base.name} could not be searched: ${err.message.replace(/\.$/, '')}. Check its url and that the service answers POST {query, topK} with {results: [...]}.`,
      );
    }
  }

  /** The base, if the caller may see it (another tenant's is 404). */
  async load(auth: Pick<AuthContext, 'tenantId'>, id: string): Promise<KnowledgeBaseEntity> {
    const row = await this.repo.findBase(id);
    if (!row || (auth.tenantId !== null && row.tenantId !== auth.tenantId)) throw notFound(id);
    return row;
  }
}

function notFound(id: string): DomainError {
  return new DomainError(
    CommonErrorCode.NOT_FOUND,
    `No knowledge base ${id} in your tenant; list them with GET /api/v1/admin/knowledge-bases.`,
  );
}

/** Longest URL of an HTTP base, as stored (the column's length). */
const URL_MAX_CHARS = 2048;

/** An HTTP base's URL: http(s), no credentials in it (the outbound guard vets the address at call time). */
function checkedUrl(raw: string | undefined): string {
  let url: URL | undefined;
  try {
    url = raw === undefined ? undefined : new URL(raw);
  } catch {
    url = undefined;
  }
  const problem = !url
    ? 'an HTTP knowledge base needs an absolute http(s) URL, e.g. https://retrieval.example.com/search'
    : !['http:', 'https:'].includes(url.protocol)
      ? `must be an http: or https: URL, not ${url.protocol}; e.g. https://retrieval.example.com/search`
      : undefined;
  if (problem) throw validationFailed([{ field: 'url', problems: [problem] }]);
  const credential = urlCredentialProblem(raw!, 'url', 'the retrieval service must not need secrets from the gateway');
  if (credential) throw validationFailed([credential]);
  // What is stored and called: non-ASCII characters percent-encoded, so it may be several times longer than sent.
  const normalized = url!.toString();
  if (normalized.length > URL_MAX_CHARS) {
    throw validationFailed([
      {
        field: 'url',
        problems: [
          `is ${normalized.length} characters once its non-ASCII characters are percent-encoded; at most ${URL_MAX_CHARS}`,
        ],
      },
    ]);
  }
  return normalized;
}

export function toKnowledgeBaseDto(row: KnowledgeBaseEntity): KnowledgeBaseDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    kind: row.kind,
    url: row.url,
    documentCount: row.documentCount,
    chunkCount: row.chunkCount,
    createdAt: toIso(row.createdAt)!,
    updatedAt: toIso(row.updatedAt)!,
  };
}
