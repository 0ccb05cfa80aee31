import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Query,
  Req,
  UseInterceptors,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiTags,
  getSchemaPath,
  ApiOperation,
} from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { TransferLimit } from '@app/common/http/transfer-limit.interceptor';
import { PageQueryDto } from '@app/common/dto/page.dto';
import { validationFailed } from '@app/common/errors/validation';
import { SkillsService } from './skills.service';
import { readSkillUpload } from './skill-upload.reader';
import {
  SkillDto,
  SkillFilePageDto,
  SkillJsonUploadDto,
  SkillPageDto,
  SkillReleaseDto,
  SkillZipUploadDto,
} from './skills.dto';

/** A release version in the path: a whole number, else 400 naming the parameter. */
const VERSION = new ParseIntPipe({
  exceptionFactory: () =>
    validationFailed([{ field: 'version', problems: ['must be a whole number (a release version)'] }]),
});

const UPLOAD_BODY = {
  description:
    'multipart/form-data (field `file`: the skill folder as a .zip; field `tenantId`) or JSON (`skillContent` is SKILL.md)',
  schema: { oneOf: [{ $ref: getSchemaPath(SkillZipUploadDto) }, { $ref: getSchemaPath(SkillJsonUploadDto) }] },
};

@ApiTags('admin: skills')
@ApiBearerAuth()
@Roles('admin')
@ApiExtraModels(SkillZipUploadDto, SkillJsonUploadDto)
@Controller('api/v1/admin/skills')
export class SkillsController {
  constructor(private readonly skills: SkillsService) {}

  @Post()
  @ApiOperation({ summary: 'Upload a new skill (its release 1 is published)' })
  @UseInterceptors(TransferLimit)
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody(UPLOAD_BODY)
  @ApiCreatedResponse({ type: SkillDto, description: 'The skill; release 1 is published' })
  @ApiErrors(400, 403, 409)
  async create(@Auth() auth: AuthContext, @Req() req: FastifyRequest, @Body() body: unknown): Promise<SkillDto> {
    return this.skills.create(auth, (checkScope) => readSkillUpload(req, body, this.skills.limits(), checkScope));
  }

  @Get()
  @ApiOperation({ summary: 'List skills' })
  @ApiOkResponse({ type: SkillPageDto, description: "The tenant's skills and the official ones" })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<SkillPageDto> {
    return this.skills.list(auth, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a skill' })
  @ApiOkResponse({ type: SkillDto })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<SkillDto> {
    return this.skills.get(auth, id);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a skill' })
  @HttpCode(200)
  @ApiOkResponse({ type: SkillDto, description: 'The deleted skill (unbound from every agent)' })
  @ApiErrors(403, 404)
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<SkillDto> {
    return this.skills.remove(auth, id);
  }

  @Post(':id/releases')
  @ApiOperation({ summary: 'Upload a new release of a skill (not published)' })
  @UseInterceptors(TransferLimit)
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody(UPLOAD_BODY)
  @ApiCreatedResponse({ type: SkillReleaseDto, description: 'The new release (not published yet)' })
  @ApiErrors(400, 403, 404, 409)
  async addRelease(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Req() req: FastifyRequest,
    @Body() body: unknown,
  ): Promise<SkillReleaseDto> {
    return this.skills.addRelease(auth, id, () => readSkillUpload(req, body, this.skills.limits()));
  }

  @Post(':id/releases/:version/publish')
  @ApiOperation({ summary: 'Publish a release of a skill (an older one rolls back)' })
  @HttpCode(200)
  @ApiOkResponse({ type: SkillDto, description: 'The skill with this release current (an older one rolls back)' })
  @ApiErrors(400, 403, 404)
  publish(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Param('version', VERSION) version: number,
  ): Promise<SkillDto> {
    return this.skills.publish(auth, id, version);
  }

  @Get(':id/releases/:version/files')
  @ApiOperation({ summary: 'List the files of a skill release' })
  @ApiOkResponse({ type: SkillFilePageDto, description: "The release's file index" })
  @ApiErrors(400, 404)
  files(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Param('version', VERSION) version: number,
    @Query() query: PageQueryDto,
  ): Promise<SkillFilePageDto> {
    return this.skills.files(auth, id, version, query);
  }
}
