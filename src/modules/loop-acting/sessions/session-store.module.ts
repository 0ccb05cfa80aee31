import { Module } from '@nestjs/common';
import { AgentSessionRepository } from './agent-session.repository';

/**
 * The session store alone (`agent_session` through HotSql), for modules below loop-acting that read sessions
 * (tool-specs with `sessionId`) without depending on the acting step.
 */
@Module({
  providers: [AgentSessionRepository],
  exports: [AgentSessionRepository],
})
export class SessionStoreModule {}
