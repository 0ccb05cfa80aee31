import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { PageQueryDto } from '@app/common/dto/page.dto';
import { KnowledgeBasesService } from './knowledge-bases.service';
import {
  CreateKnowledgeBaseDto,
  KnowledgeBaseDto,
  KnowledgeBasePageDto,
  KnowledgeSearchResponseDto,
  SearchKnowledgeBaseDto,
} from './knowledge-bases.dto';

@ApiTags('admin: knowledge bases')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/knowledge-bases')
export class KnowledgeBasesController {
  constructor(private readonly bases: KnowledgeBasesService) {}

  @Post()
  @ApiOperation({ summary: 'Create a knowledge base (INTERNAL or HTTP)' })
  @ApiCreatedResponse({ type: KnowledgeBaseDto })
  @ApiErrors(400, 409)
  create(@Auth() auth: AuthContext, @Body() dto: CreateKnowledgeBaseDto): Promise<KnowledgeBaseDto> {
    return this.bases.create(auth, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List knowledge bases' })
  @ApiOkResponse({ type: KnowledgeBasePageDto })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<KnowledgeBasePageDto> {
    return this.bases.list(auth, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a knowledge base' })
  @ApiOkResponse({ type: KnowledgeBaseDto })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<KnowledgeBaseDto> {
    return this.bases.get(auth, id);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a knowledge base with its documents' })
  @HttpCode(200)
  @ApiOkResponse({ type: KnowledgeBaseDto, description: 'Deleted with its documents; agents bound to it are unbound' })
  @ApiErrors(404)
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<KnowledgeBaseDto> {
    return this.bases.remove(auth, id);
  }

  @Post(':id/search')
  @ApiOperation({ summary: 'Search a knowledge base as RAG_SEARCH would' })
  @HttpCode(200)
  @ApiOkResponse({ type: KnowledgeSearchResponseDto, description: 'What RAG_SEARCH returns for this base' })
  @ApiErrors(400, 404, 502)
  search(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: SearchKnowledgeBaseDto,
  ): Promise<KnowledgeSearchResponseDto> {
    return this.bases.search(auth, id, dto);
  }
}
