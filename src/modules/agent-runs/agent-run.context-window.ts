import type { ConversationMessage } from './agent-runs.types';

/**
 * Tokens a text may take, estimated without the model's tokenizer (each model has its own): UTF-8 bytes / 3,
 * rounded up. English runs about 4 bytes a token and Chinese 3 bytes a character (about a token each), so the
 * estimate errs on the side of sending less.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

/** What each message costs beside its text (role, separators), as providers count it, rounded up. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/** What the model is sent of the conversation, and what was left out to fit. */
export interface FittedConversation {
  messages: ConversationMessage[];
  /** Messages left out, oldest first (0 when the conversation fits). */
  omitted: number;
  /** Tool results replaced by a note saying how to read them again. */
  shortened: number;
}

/**
 * The latest part of a conversation that fits `budgetTokens`, for a model whose context window cannot take all
 * of it. Three steps, each only while the conversation is still over the budget:
 * 1. Tool results older than the last round are replaced, oldest first, by a note naming their size and how to
 *    read them again (READ_TOOL_RESULT with the call's journal key): the turns and their order stay.
 * 2. Whole turns are left out, oldest first: a user message; an assistant message; an assistant message with its
 *    tool calls together with their answers (a provider refuses a tool call without its answer, or an answer
 *    without its call). Turns before the last user message go first.
 * 3. The last user message and the last turn are always sent: if they alone are over the budget, the provider
 *    decides (the estimate is cautious), and the run fails with its refusal.
 */
export function fitConversation(
  conversation: readonly ConversationMessage[],
  budgetTokens: number,
): FittedConversation {
  const messages = conversation.map((m) => ({ ...m }));
  let total = messages.reduce((sum, m) => sum + messageTokens(m), 0);
  if (total <= budgetTokens) return { messages, omitted: 0, shortened: 0 };

  const turns = turnsOf(messages);
  const lastTurn = turns.length - 1;
  let shortened = 0;
  for (let t = 0; t < lastTurn && total > budgetTokens; t++) {
    // Models repeat ids across turns (`call_0`), and within an answer: a result's journal key is the one its own
    // call got. A turn's results follow its calls in order; the id decides only when they do not line up.
    const calls = turns[t][0].toolCalls ?? [];
    let answered = -1;
    for (const m of turns[t]) {
      if (m.role !== 'tool') continue;
      const own = calls[++answered]?.id === m.toolCallId ? calls[answered] : undefined;
      if (total <= budgetTokens) continue;
      const note = omittedResultNote(m, (own ?? calls.find((c) => c.id === m.toolCallId))?.key);
      const saved = messageTokens(m) - messageTokens({ ...m, content: note });
      if (saved <= 0) continue;
      m.content = note;
      total -= saved;
      shortened++;
    }
  }

  const lastUser = turns.findLastIndex((turn) => turn[0].role === 'user');
  const dropOrder = [...turns.keys()].filter((t) => t !== lastTurn && t !== lastUser);
  const dropped = new Set<number>();
  for (const t of dropOrder) {
    if (total <= budgetTokens) break;
    dropped.add(t);
    total -= turns[t].reduce((sum, m) => sum + messageTokens(m), 0);
  }
  const kept = turns.filter((_, t) => !dropped.has(t)).flat();
  return { messages: kept, omitted: messages.length - kept.length, shortened };
}

/** What one model request is sent: the system prompt (with a note when messages were left out) and messages. */
export interface ModelRequestConversation extends FittedConversation {
  systemPrompt: string | null;
}

/** The provider's context window and the answer's share of it (its `maxTokens`). */
export interface ContextWindow {
  contextWindowTokens?: number;
  maxTokens?: number;
}

/**
 * The conversation of one model request within the provider's context window (none set: all of it): the window
 * less the answer's reserve (`maxTokens`, else a quarter of the window up to 4,096), the system prompt and the
 * tools' schemas is what the messages may take ({@link fitConversation}).
 */
export function withinContextWindow(
  window: ContextWindow,
  systemPrompt: string | null,
  tools: readonly object[],
  conversation: readonly ConversationMessage[],
): ModelRequestConversation {
  if (!window.contextWindowTokens) return { systemPrompt, messages: [...conversation], omitted: 0, shortened: 0 };
  const reserve = window.maxTokens ?? Math.min(4096, Math.floor(window.contextWindowTokens / 4));
  const note = omittedMessagesNote(conversation.length);
  const fixed =
    estimateTokens(`${systemPrompt ?? ''}\n\n${note}`) +
    MESSAGE_OVERHEAD_TOKENS +
    estimateTokens(JSON.stringify(tools));
  const fitted = fitConversation(conversation, window.contextWindowTokens - reserve - fixed);
  if (fitted.omitted === 0) return { systemPrompt, ...fitted };
  const told = omittedMessagesNote(fitted.omitted);
  return { systemPrompt: systemPrompt ? `${systemPrompt}\n\n${told}` : told, ...fitted };
}

function omittedMessagesNote(omitted: number): string {
  return `[${omitted} earlier message${omitted === 1 ? '' : 's'} of this conversation left out to fit the model's context window.]`;
}

function messageTokens(m: ConversationMessage): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS + estimateTokens(m.content ?? '') + estimateTokens(m.reasoning ?? '');
  for (const c of m.toolCalls ?? [])
    tokens += estimateTokens(c.id) + estimateTokens(c.name) + estimateTokens(c.arguments);
  if (m.toolCallId) tokens += estimateTokens(m.toolCallId);
  return tokens;
}

/** Consecutive messages that must be sent or left out together. */
function turnsOf(messages: ConversationMessage[]): ConversationMessage[][] {
  const turns: ConversationMessage[][] = [];
  for (const m of messages) {
    // A tool answer belongs to the assistant message before it (a stray one, to whatever precedes it).
    if (m.role === 'tool' && turns.length > 0) turns[turns.length - 1].push(m);
    else turns.push([m]);
  }
  return turns;
}

function omittedResultNote(m: ConversationMessage, key: string | undefined): string {
  const size = `${(m.content ?? '').length} characters`;
  return key
    ? `[result left out to fit the model's context window (${size}); call READ_TOOL_RESULT with {"toolCallId":${JSON.stringify(key)}} to read it again]`
    : `[result left out to fit the model's context window (${size})]`;
}
