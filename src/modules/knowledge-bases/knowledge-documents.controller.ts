import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { PageQueryDto } from '@app/common/dto/page.dto';
import { KnowledgeDocumentsService } from './knowledge-documents.service';
import { CreateKnowledgeDocumentDto, KnowledgeDocumentDto, KnowledgeDocumentPageDto } from './knowledge-bases.dto';

@ApiTags('admin: knowledge bases')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/knowledge-bases/:id/documents')
export class KnowledgeDocumentsController {
  constructor(private readonly documents: KnowledgeDocumentsService) {}

  @Post()
  @ApiOperation({ summary: 'Add a document to an INTERNAL knowledge base (chunked and indexed)' })
  @ApiCreatedResponse({ type: KnowledgeDocumentDto, description: 'Chunked and indexed before the answer' })
  @ApiErrors(400, 404, 409)
  add(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: CreateKnowledgeDocumentDto,
  ): Promise<KnowledgeDocumentDto> {
    return this.documents.add(auth, id, dto);
  }

  @Get()
  @ApiOperation({ summary: "List a knowledge base's documents" })
  @ApiOkResponse({ type: KnowledgeDocumentPageDto, description: 'Without content' })
  @ApiErrors(400, 404)
  list(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: PageQueryDto,
  ): Promise<KnowledgeDocumentPageDto> {
    return this.documents.list(auth, id, query);
  }

  @Get(':docId')
  @ApiOperation({ summary: 'Get a document with its content and passages' })
  @ApiOkResponse({ type: KnowledgeDocumentDto, description: 'With its content and its passages' })
  @ApiErrors(404)
  get(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Param('docId') docId: string,
  ): Promise<KnowledgeDocumentDto> {
    return this.documents.get(auth, id, docId);
  }

  @Delete(':docId')
  @ApiOperation({ summary: 'Delete a document' })
  @HttpCode(200)
  @ApiOkResponse({ type: KnowledgeDocumentDto, description: 'Deleted and out of the index' })
  @ApiErrors(404)
  remove(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Param('docId') docId: string,
  ): Promise<KnowledgeDocumentDto> {
    return this.documents.remove(auth, id, docId);
  }
}
