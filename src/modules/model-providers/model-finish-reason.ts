/** The `finish_reason` of a whole answer: OpenAI's, and the words of servers that say it their own way (TGI, proxies). */
const WHOLE_ANSWER_FINISH_REASONS = new Set(['stop', 'eos_token', 'stop_sequence', 'end_turn']);
/** The `finish_reason` of an answer that ends to call tools (`function_call`: the deprecated functions API's). */
const TOOL_CALL_FINISH_REASONS = new Set(['tool_calls', 'function_call']);
export const MAX_FINISH_REASON_CHARS = 64;

/**
 * The `finish_reason` of an answer that did not end as the model meant it; undefined for a whole one. An answer that
 * ended to call tools but holds no tool call is not whole either: a server whose tool parser failed sends the model's
 * raw call as text.
 */
export function endedEarly(finishReason: string, hasToolCalls: boolean): string | undefined {
  if (finishReason === '') return undefined;
  const reason = finishReason.slice(0, MAX_FINISH_REASON_CHARS);
  if (TOOL_CALL_FINISH_REASONS.has(reason)) return hasToolCalls ? undefined : reason;
  return WHOLE_ANSWER_FINISH_REASONS.has(reason) ? undefined : reason;
}
