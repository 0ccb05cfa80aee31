import type { NewSessionEvent } from '@app/modules/session-events/session-event.types';
import type { AgentSessionEntity } from './agent-session.entity';
import type { HitlRequestView } from './session.types';

/** The `hitl.decided` event of a request of `session`, whoever decided it (a resume, an admin, the session's close). */
export function hitlDecidedEvent(
  session: Pick<AgentSessionEntity, 'tenantId' | 'id'>,
  request: Pick<HitlRequestView, 'id' | 'requestType' | 'toolCallId'>,
  decision: string,
  decidedBy: string,
): NewSessionEvent {
  return {
    tenantId: session.tenantId,
    sessionId: session.id,
    type: 'hitl.decided',
    // One per request, whoever records it: a decision carried out again after a crash reports it once.
    onceKey: `hitl.decided:${request.id}`,
    data: {
      requestId: request.id,
      requestType: request.requestType,
      toolCallId: request.toolCallId,
      decision,
      decidedBy,
    },
  };
}
