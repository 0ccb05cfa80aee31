import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ToolRegistryModule } from '@app/modules/tool-registry/tool-registry.module';
import { ExecutorsModule } from '@app/modules/executors/executors.module';
import { SessionEventsModule } from '@app/modules/session-events/session-events.module';
import { LoopActingModule } from '@app/modules/loop-acting/loop-acting.module';
import { ArtifactEntity } from './artifact.entity';
import { ArtifactsService } from './artifacts.service';
import { ArtifactOrphanSweeper } from './artifact-orphan.sweeper';
import { ArtifactsController } from './artifacts.controller';
import { WorkspaceLocator } from './workspace.locator';
import { WorkspaceGate } from './workspace.gate';
import { WorkspaceFiles } from './workspace-files.service';
import { WorkspaceSessions } from './workspace-sessions.service';
import { WorkspaceEvents } from './workspace.events';
import { WorkspaceBuiltinsDispatcher } from './workspace-builtins.dispatcher';
import { WorkspaceFilesController } from './workspace-files.controller';
import { WorkspaceCloseHook } from './workspace-close.hook';
import { WorkspaceCommandRunner } from './workspace-command.runner';
import { WorkspaceMountSources } from './workspace-mount.sources';
import { WorkspaceSkillMountSource } from './workspace-skill-mount.source';
import { SkillsModule } from '@app/modules/skills/skills.module';
import { SandboxModule } from '@app/modules/sandbox/sandbox.module';

/** Session workspaces (WORKSPACE_ROOT), the file built-ins, the runtime file API and artifacts. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ArtifactEntity]),
    ToolRegistryModule,
    ExecutorsModule,
    SessionEventsModule,
    LoopActingModule,
    SandboxModule,
    SkillsModule,
  ],
  controllers: [WorkspaceFilesController, ArtifactsController],
  providers: [
    WorkspaceLocator,
    WorkspaceFiles,
    WorkspaceSessions,
    WorkspaceEvents,
    ArtifactsService,
    ArtifactOrphanSweeper,
    WorkspaceBuiltinsDispatcher,
    WorkspaceCloseHook,
    WorkspaceCommandRunner,
    WorkspaceMountSources,
    WorkspaceSkillMountSource,
    WorkspaceGate,
  ],
  exports: [WorkspaceLocator, WorkspaceSessions, WorkspaceMountSources, ArtifactsService, ArtifactOrphanSweeper],
})
export class WorkspaceModule {}
