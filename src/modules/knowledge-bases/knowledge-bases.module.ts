import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { ExecutorsModule } from '@app/modules/executors/executors.module';
import { AgentConfigModule } from '@app/modules/agent-config/agent-config.module';
import { KnowledgeBaseEntity } from './knowledge-base.entity';
import { KnowledgeDocumentEntity } from './knowledge-document.entity';
import { KnowledgeBaseDeletionEntity } from './knowledge-base-deletion.entity';
import { KnowledgeBaseDeletions } from './knowledge-base.deletions';
import { KnowledgeBaseDeletionJob } from './knowledge-base-deletion.job';
import { KnowledgeBasesRepository } from './knowledge-bases.repository';
import { KnowledgeChunkIndex } from './knowledge-chunk.index';
import { KnowledgeHttpClient } from './knowledge-http.client';
import { KnowledgeSearchService } from './knowledge-search.service';
import { KnowledgeBasesService } from './knowledge-bases.service';
import { KnowledgeDocumentsService } from './knowledge-documents.service';
import { RagSearchDispatcher } from './rag-search.dispatcher';
import { KnowledgeBasesController } from './knowledge-bases.controller';
import { KnowledgeDocumentsController } from './knowledge-documents.controller';
import { AgentKnowledgeBasesController } from './agent-knowledge-bases.controller';

/**
 * Knowledge bases and RAG_SEARCH: INTERNAL bases indexed for full text in the gateway's database (FTS5 / InnoDB
 * FULLTEXT, ranked by BM25 the same on both), HTTP bases answered by the team's retrieval service.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([KnowledgeBaseEntity, KnowledgeDocumentEntity, KnowledgeBaseDeletionEntity]),
    ToolRegistryModule,
    ExecutorsModule,
    AgentConfigModule,
  ],
  controllers: [KnowledgeBasesController, KnowledgeDocumentsController, AgentKnowledgeBasesController],
  providers: [
    KnowledgeBasesRepository,
    KnowledgeChunkIndex,
    KnowledgeHttpClient,
    KnowledgeSearchService,
    KnowledgeBasesService,
    KnowledgeDocumentsService,
    RagSearchDispatcher,
    KnowledgeBaseDeletions,
    KnowledgeBaseDeletionJob,
  ],
})
export class KnowledgeBasesModule {}
