import { IsIdList } from '@app/common/dto/id-list.decorator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { IsSafeLine } from '@app/common/safe-text';
import { PageMetaDto } from '@app/common/dto/page.dto';
import { TENANT_ID_PATTERN } from '@app/modules/tool-registry/tool-registry.types';
import {
  DOCUMENT_MAX_CHARS,
  KNOWLEDGE_BASE_KINDS,
  KNOWLEDGE_BASE_NAME_PATTERN,
  KNOWLEDGE_MIME_TYPES,
  SEARCH_MAX_TOP_K,
  type KnowledgeBaseKind,
  type KnowledgeMimeType,
} from './knowledge-bases.types';

export class CreateKnowledgeBaseDto {
  @ApiProperty({ example: 'handbook', description: 'Unique per tenant (case-insensitively); RAG_SEARCH names it' })
  @IsString()
  @Matches(KNOWLEDGE_BASE_NAME_PATTERN, {
    message:
      'name must be 1-128 letters of any script (with their accents and vowel signs), digits, spaces, _ . or -, starting with a letter or digit, not ending with a space, and without invisible characters (zero-width joiners, variation selectors)',
  })
  name: string;

  @ApiProperty({ example: 'acme', description: 'A tenant admin key may only use its own tenant' })
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'tenantId must be 1-64 letters, digits, _ . or -' })
  tenantId: string;

  @ApiProperty({
    enum: KNOWLEDGE_BASE_KINDS,
    description:
      'INTERNAL: documents are indexed in the gateway database. HTTP: searches are POSTed to `url` as {query, topK}',
  })
  @IsIn(KNOWLEDGE_BASE_KINDS)
  kind: KnowledgeBaseKind;

  @ApiPropertyOptional({
    example: 'https://retrieval.acme.internal/search',
    description: 'HTTP only (required there): the retrieval service, reached through the outbound guard',
  })
  @ValidateIf((o: CreateKnowledgeBaseDto) => o.kind === 'HTTP' || o.url !== undefined)
  @IsString()
  @CharLength(1, 2048)
  @IsSafeLine()
  url?: string;
}

export class KnowledgeBaseDto {
  @ApiProperty() id: string;
  @ApiProperty() tenantId: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: KNOWLEDGE_BASE_KINDS }) kind: KnowledgeBaseKind;
  @ApiProperty({ nullable: true, type: String }) url: string | null;
  @ApiProperty({ description: 'INTERNAL: documents stored' }) documentCount: number;
  @ApiProperty({ description: 'INTERNAL: passages indexed' }) chunkCount: number;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class KnowledgeBasePageDto extends PageMetaDto {
  @ApiProperty({ type: [KnowledgeBaseDto] }) items: KnowledgeBaseDto[];
}

export class CreateKnowledgeDocumentDto {
  @ApiProperty({ example: 'Refund policy', maxLength: 512 })
  @IsString()
  @CharLength(1, 512)
  @IsSafeLine()
  title: string;

  @ApiProperty({ description: `The text (at most ${DOCUMENT_MAX_CHARS} characters); Markdown is cut along headings` })
  @IsString()
  @CharLength(1, DOCUMENT_MAX_CHARS)
  content: string;

  @ApiProperty({ enum: KNOWLEDGE_MIME_TYPES })
  @IsIn(KNOWLEDGE_MIME_TYPES)
  mimeType: KnowledgeMimeType;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Kept with the document' })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class KnowledgeChunkDto {
  @ApiProperty() seq: number;
  @ApiProperty({ nullable: true, type: String, description: 'Heading path, e.g. `Install > Linux`' })
  heading: string | null;
  @ApiProperty() content: string;
}

export class KnowledgeDocumentDto {
  @ApiProperty() id: string;
  @ApiProperty() knowledgeBaseId: string;
  @ApiProperty() title: string;
  @ApiProperty({ enum: KNOWLEDGE_MIME_TYPES }) mimeType: KnowledgeMimeType;
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true }) metadata: Record<string, unknown> | null;
  @ApiProperty() chunkCount: number;
  @ApiProperty() charCount: number;
  @ApiProperty() createdAt: string;
  @ApiPropertyOptional({ description: 'GET of one document only' }) content?: string;
  @ApiPropertyOptional({ type: [KnowledgeChunkDto], description: 'GET of one document only: its passages' })
  chunks?: KnowledgeChunkDto[];
}

export class KnowledgeDocumentPageDto extends PageMetaDto {
  @ApiProperty({ type: [KnowledgeDocumentDto] }) items: KnowledgeDocumentDto[];
}

export class SearchKnowledgeBaseDto {
  @ApiProperty({ example: 'how long does a refund take', maxLength: 1000 })
  @IsString()
  @CharLength(1, 1000)
  query: string;

  @ApiPropertyOptional({ minimum: 1, maximum: SEARCH_MAX_TOP_K, default: 5 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(SEARCH_MAX_TOP_K)
  topK?: number;
}

export class KnowledgeSearchResultDto {
  @ApiProperty({ nullable: true, type: String }) documentId: string | null;
  @ApiProperty() title: string;
  @ApiProperty({ description: 'The passage' }) content: string;
  @ApiProperty({ description: 'Higher is better (BM25 for INTERNAL bases)' }) score: number;
  @ApiProperty({ nullable: true, type: String, description: 'The heading path of the passage' })
  heading: string | null;
}

export class KnowledgeSearchResponseDto {
  @ApiProperty({ type: [KnowledgeSearchResultDto], description: 'One entry per passage, best first' })
  results: KnowledgeSearchResultDto[];
}

export class ReplaceAgentKnowledgeBasesDto {
  @ApiProperty({ type: [String], description: "The complete set of the tenant's knowledge bases RAG_SEARCH searches" })
  @IsIdList(50)
  knowledgeBaseIds: string[];
}
