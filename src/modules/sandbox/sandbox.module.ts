import { Module } from '@nestjs/common';
import { SandboxRunner } from './sandbox-runner.service';

/** The command sandbox (bubblewrap) that RUN_COMMAND runs in. */
@Module({
  providers: [SandboxRunner],
  exports: [SandboxRunner],
})
export class SandboxModule {}
