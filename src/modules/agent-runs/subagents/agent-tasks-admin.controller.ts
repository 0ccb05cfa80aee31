import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { PageMetaDto, PageQueryDto, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { AgentTasksRepository } from './agent-tasks.repository';
import { toTaskView } from './agent-tasks.service';
import { TASK_STATUSES } from './agent-tasks.types';

export class TasksQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only the tasks this session started' })
  @IsOptional()
  @IsString()
  @Length(1, 36)
  parentSessionId?: string;
}

export class TaskDto {
  @ApiProperty() taskId: string;
  @ApiProperty({ enum: TASK_STATUSES }) status: string;
  @ApiPropertyOptional() answer?: string;
  @ApiPropertyOptional() error?: string;
  @ApiProperty({ description: 'The sub-agent, by name' }) agent: string;
  @ApiProperty() parentSessionId: string;
  @ApiProperty() parentToolCallId: string;
  @ApiProperty() childSessionId: string;
  @ApiProperty({ description: 'Hops from the root session' }) depth: number;
  @ApiProperty() createdAt: string;
}

export class TaskPageDto extends PageMetaDto {
  @ApiProperty({ type: [TaskDto] }) items: TaskDto[];
}

@ApiTags('admin: tasks')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/tasks')
export class AgentTasksAdminController {
  constructor(private readonly tasks: AgentTasksRepository) {}

  @Get()
  @ApiOkResponse({ type: TaskPageDto, description: 'Sub-agent tasks of your tenant, oldest first' })
  @ApiErrors(400)
  async list(@Auth() auth: AuthContext, @Query() query: TasksQueryDto): Promise<TaskPageDto> {
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.tasks.list(auth.tenantId, query.parentSessionId, skip, take);
    const runs = await this.tasks.runsOf(rows);
    return pageOf(
      rows.map((t) => toTaskView(t, runs.get(t.childRunId) ?? null)),
      total,
      query,
    );
  }
}
