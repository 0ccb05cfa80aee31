import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { SessionsService } from './sessions.service';
import { AdminSessionPageDto, AdminSessionsQueryDto } from './sessions.dto';

@ApiTags('admin: sessions')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/sessions')
export class SessionsAdminController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @ApiOperation({ summary: 'List sessions' })
  @ApiOkResponse({ type: AdminSessionPageDto, description: "Sessions of the key's tenant, newest first" })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: AdminSessionsQueryDto): Promise<AdminSessionPageDto> {
    return this.sessions.list(auth, query);
  }
}
