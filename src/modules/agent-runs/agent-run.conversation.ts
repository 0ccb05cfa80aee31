import { TOOL_NAME_PATTERN } from '@app/modules/tool-registry/tool-registry.types';
import { createHash } from 'node:crypto';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ModelToolCall } from '@app/modules/model-providers/model-chat.client';
import type { ConversationMessage, PendingToolCall } from './agent-runs.types';

/** The journal keeps toolCallIds up to 128 characters; a longer qualified key is shortened by its hash. */
const MAX_KEY_CHARS = 120;

/**
 * What a call with a name that is no tool name is sent back as: OpenAI refuses a conversation holding one
 * (`Invalid 'messages[2].tool_calls[0].function.name': string does not match pattern`), and the stored call would
 * make every later round of the session fail. Its answer names the name the model made up.
 */
const NOT_A_TOOL_NAME = 'invalid_tool_name';

/**
 * What a call whose arguments are no JSON object (a call a token limit cut, a model's broken JSON) is sent back with:
 * vLLM, llama.cpp's server and SGLang parse every replayed call's arguments for the chat template and refuse the whole
 * request when they cannot (`Unterminated string starting at...`), so every later round of the session would fail. Its
 * tool answer says what was wrong; the stored conversation keeps what the model sent.
 */
const NO_ARGUMENTS = '{}';

/**
 * The conversation in OpenAI's chat format: the agent's system prompt first, then every stored message. An assistant
 * message that only calls tools carries `content: null` (OpenAI's documented form; servers answer "" there, and some
 * providers refuse "" sent back); one with neither text nor tool calls (an empty final answer) is left out, as
 * providers refuse an empty assistant message. The stored conversation keeps both as the model answered. An answer
 * that called tools is sent with the reasoning the model answered beside it (`reasoning_content`), which DeepSeek's
 * thinking mode requires in every later request, and each call with its `extra_content` (Gemini's thought signature,
 * which Gemini requires alike).
 */
export function toChatMessages(
  systemPrompt: string | null,
  conversation: readonly ConversationMessage[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
  for (const m of conversation) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content ?? '' });
    else if (m.role === 'tool') out.push({ role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content ?? '' });
    else if (m.toolCalls && m.toolCalls.length > 0)
      out.push({
        role: 'assistant',
        content: m.content || null,
        // Not OpenAI's (its client's types lack it); sent only where the provider answered it.
        ...(m.reasoning && { reasoning_content: m.reasoning }),
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: {
            name: TOOL_NAME_PATTERN.test(c.name) ? c.name : NOT_A_TOOL_NAME,
            arguments: isJsonObjectText(c.arguments) ? c.arguments : NO_ARGUMENTS,
          },
          ...(c.extraContent && { extra_content: c.extraContent }),
        })),
      });
    else if (m.content) out.push({ role: 'assistant', content: m.content });
  }
  return out;
}

/**
 * The journal key of each tool call of a model answer: the model's own id, unless the session used that key
 * before (models repeat ids such as `call_0` across turns, or give two calls of one answer the same id): then
 * `<id>@<runId>:<iteration>` (`.2`, `.3`... when that is taken too), the one form the contract names. A call without
 * an id, or with an id another call of the answer has, gets an id in the conversation from the gateway
 * (`call_<run>_<iteration>_<index>`, short enough for OpenAI's 40 characters, which a qualified key is not), so
 * each tool message answers exactly one call: a provider sent one id for two calls (and two answers under it)
 * reads a conversation it cannot follow; a call without an id is keyed by that id. The same call twice in one answer (id, name and arguments) is one call,
 * kept once: it runs once. Assigned once, when the answer is checkpointed, so a continuation after a crash submits
 * the same keys. In an answer `cutShort` at the model's token limit, the last call is marked `truncated` when its
 * arguments are no complete JSON (or none at all): the cut left them incomplete, and it must not run.
 */
export function assignJournalKeys(
  calls: readonly ModelToolCall[],
  usedKeys: ReadonlySet<string>,
  runId: string,
  iteration: number,
  cutShort = false,
): PendingToolCall[] {
  const taken = new Set(usedKeys);
  const kept: PendingToolCall[] = [];
  const ids = new Set<string>();
  // The calls kept so far, by the id the model gave them, their name and their arguments.
  const seen = new Set<string>();
  calls.forEach((c, i) => {
    const args = c.arguments.trim() === '' ? '{}' : c.arguments;
    // The id is stored with the conversation (128 characters at most, the journal's bound): a longer one is
    // shortened by its hash like a key, in the assistant message and its tool answer alike.
    const own = c.id && /^[\x21-\x7e]+$/.test(c.id) ? bounded(c.id) : undefined;
    const signature = own && JSON.stringify([own, c.name, args]);
    if (signature && seen.has(signature)) return;
    if (signature) seen.add(signature);
    const generated = `call_${runId.slice(0, 8)}_${iteration}_${i}`;
    let id = own && !ids.has(own) ? own : generated;
    for (let n = 2; ids.has(id); n++) id = `${generated}_${n}`;
    ids.add(id);
    // The key is the model's own id (qualified when taken), also for a call whose id the conversation had to replace.
    const base = own ?? id;
    let key = bounded(base);
    if (taken.has(key)) key = bounded(`${base}@${runId}:${iteration}`);
    for (let n = 2; taken.has(key); n++) key = bounded(`${base}@${runId}:${iteration}.${n}`);
    taken.add(key);
    const truncated = cutShort && i === calls.length - 1 && !isCompleteJson(c.arguments);
    kept.push({
      id,
      key,
      name: c.name,
      arguments: args,
      ...(truncated && { truncated: true as const }),
      ...(c.extraContent && { extraContent: c.extraContent }),
    });
  });
  return kept;
}

function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function isCompleteJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Every journal key the session's stored tool calls used. */
export function usedJournalKeys(conversation: readonly ConversationMessage[]): Set<string> {
  const keys = new Set<string>();
  for (const m of conversation) for (const c of m.toolCalls ?? []) keys.add(c.key);
  return keys;
}

function bounded(key: string): string {
  if (key.length <= MAX_KEY_CHARS) return key;
  return `${key.slice(0, 60)}#${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}
