import { MAX_TOOL_CALLS_PER_ACT } from '@app/modules/loop-acting/sessions/act-body.schema';
import type { MessageRole, PendingToolCall } from './agent-runs.types';

/** Characters of a message's text a `message` event carries; GET /sessions/{id}/messages has it whole. */
export const MESSAGE_EVENT_TEXT_CHARS = 2_000;
/** Characters of a tool call's name a `message` event carries (a valid one has at most 64). */
const MESSAGE_EVENT_NAME_CHARS = 64;

/**
 * The data of a `message` event, small whatever the message's size (events are notices, the conversation is the
 * record): the text cut at {@link MESSAGE_EVENT_TEXT_CHARS} (`contentChars`: its length, when cut), and the first
 * MAX_TOOL_CALLS_PER_ACT tool calls by journal key and name (`toolCallCount`: how many there are). On MySQL an
 * event's data holds 64 KB: a longer one was stored cut, and every read of the session's events failed from then on.
 */
export function messageEventData(
  runId: string,
  role: MessageRole,
  content: string | null,
  toolCalls?: readonly PendingToolCall[],
): Record<string, unknown> {
  const cut = content !== null && content.length > MESSAGE_EVENT_TEXT_CHARS;
  return {
    runId,
    role,
    content: cut ? content.slice(0, MESSAGE_EVENT_TEXT_CHARS) : content,
    ...(cut && { contentChars: content.length }),
    ...(toolCalls && {
      toolCalls: toolCalls
        .slice(0, MAX_TOOL_CALLS_PER_ACT)
        .map((c) => ({ id: c.key, name: c.name.slice(0, MESSAGE_EVENT_NAME_CHARS) })),
      toolCallCount: toolCalls.length,
    }),
  };
}
