import { estimateTokens, fitConversation, withinContextWindow } from './agent-run.context-window';
import type { ConversationMessage } from './agent-runs.types';

let seq = 0;
const user = (content: string): ConversationMessage => message({ role: 'user', content });
const final = (content: string): ConversationMessage => message({ role: 'assistant', content });
const calls = (...ids: string[]): ConversationMessage =>
  message({
    role: 'assistant',
    toolCalls: ids.map((id) => ({ id, key: `${id}@run`, name: 'lookup', arguments: '{"q":"x"}' })),
  });
const answer = (id: string, content: string): ConversationMessage => message({ role: 'tool', toolCallId: id, content });

function message(m: Partial<ConversationMessage>): ConversationMessage {
  return {
    seq: ++seq,
    runId: 'run',
    role: 'user',
    content: null,
    toolCalls: null,
    toolCallId: null,
    createdAt: 0,
    ...m,
  };
}

const roles = (messages: ConversationMessage[]) => messages.map((m) => m.role);

describe('estimateTokens', () => {
  it('counts UTF-8 bytes / 3: cautious for English, about a token per Chinese character', () => {
    expect(estimateTokens('abcdef')).toBe(2);
    expect(estimateTokens('你好世界')).toBe(4);
    expect(estimateTokens('')).toBe(0);
  });
});

describe('fitConversation', () => {
  it('sends a conversation that fits as it is', () => {
    const conversation = [user('hi'), calls('c1'), answer('c1', 'x'.repeat(300)), final('done')];
    const fitted = fitConversation(conversation, 10_000);
    expect(fitted).toMatchObject({ omitted: 0, shortened: 0 });
    expect(fitted.messages).toEqual(conversation);
  });

  it('first replaces older tool results, oldest first, by a note naming READ_TOOL_RESULT and the journal key', () => {
    const conversation = [
      user('look them up'),
      calls('c1'),
      answer('c1', 'a'.repeat(3000)),
      calls('c2'),
      answer('c2', 'b'.repeat(3000)),
      calls('c3'),
      answer('c3', 'c'.repeat(3000)),
    ];
    // Room for the last two results in full, not the first.
    const fitted = fitConversation(conversation, 2200);
    expect(fitted).toMatchObject({ omitted: 0, shortened: 1 });
    expect(roles(fitted.messages)).toEqual(roles(conversation));
    expect(fitted.messages[2].content).toBe(
      `[result left out to fit the model's context window (3000 characters); call READ_TOOL_RESULT with {"toolCallId":"c1@run"} to read it again]`,
    );
    expect(fitted.messages[4].content).toBe('b'.repeat(3000));
    // The last round's result is never shortened: the model asked for it to read it now.
    expect(fitted.messages[6].content).toBe('c'.repeat(3000));
    expect(conversation[2].content).toBe('a'.repeat(3000)); // the stored conversation is not changed
  });

  it("names the journal key of the result's own turn when the model repeats a call id across turns", () => {
    const repeated = (key: string): ConversationMessage =>
      message({ role: 'assistant', toolCalls: [{ id: 'call_0', key, name: 'lookup', arguments: '{}' }] });
    const conversation = [
      user('go'),
      repeated('call_0'),
      answer('call_0', 'a'.repeat(3000)),
      repeated('call_0@run:2'),
      answer('call_0', 'b'.repeat(3000)),
      repeated('call_0@run:3'),
      answer('call_0', 'c'),
    ];
    const fitted = fitConversation(conversation, 200);
    expect(fitted.shortened).toBe(2);
    expect(fitted.messages[2].content).toContain('{"toolCallId":"call_0"}');
    expect(fitted.messages[4].content).toContain('{"toolCallId":"call_0@run:2"}');
  });

  it("names each result its own call's journal key when the model repeats a call id within one answer", () => {
    const twice = message({
      role: 'assistant',
      toolCalls: [
        { id: 'call_0', key: 'call_0', name: 'lookup', arguments: '{"q":"a"}' },
        { id: 'call_0', key: 'call_0@run:1', name: 'lookup', arguments: '{"q":"b"}' },
      ],
    });
    const conversation = [
      user('go'),
      twice,
      answer('call_0', 'a'.repeat(3000)),
      answer('call_0', 'b'.repeat(3000)),
      calls('c9'),
      answer('c9', 'c'),
    ];
    const fitted = fitConversation(conversation, 200);
    expect(fitted.shortened).toBe(2);
    expect(fitted.messages[2].content).toContain('{"toolCallId":"call_0"}');
    expect(fitted.messages[3].content).toContain('{"toolCallId":"call_0@run:1"}');
  });

  it('then leaves out whole turns, oldest first: a tool call never without its answer', () => {
    const conversation = [
      user('u'.repeat(900)),
      final('f'.repeat(900)),
      user('second question'),
      calls('c1', 'c2'),
      answer('c1', 'one'),
      answer('c2', 'two'),
      calls('c3'),
      answer('c3', 'three'),
    ];
    const fitted = fitConversation(conversation, 120);
    expect(fitted.omitted).toBe(2);
    expect(fitted.messages.map((m) => m.content ?? m.toolCalls?.map((c) => c.id).join())).toEqual([
      'second question',
      'c1,c2',
      'one',
      'two',
      'c3',
      'three',
    ]);

    // Tighter: the turns after the last user message go too, but never that message or the last round.
    const tight = fitConversation(conversation, 40);
    expect(roles(tight.messages)).toEqual(['user', 'assistant', 'tool']);
    expect(tight.messages[0].content).toBe('second question');
    expect(tight.messages[2].content).toBe('three');
    expect(tight.omitted).toBe(5);
  });

  it('keeps the last user message and the last turn even when they alone are over the budget', () => {
    const conversation = [user('old'), final('old answer'), user('q'.repeat(3000))];
    const fitted = fitConversation(conversation, 10);
    expect(fitted.messages.map((m) => m.content)).toEqual(['q'.repeat(3000)]);
    expect(fitted.omitted).toBe(2);
  });
});

describe('withinContextWindow', () => {
  const conversation = [user('x'.repeat(6000)), final('y'.repeat(6000)), user('now this')];

  it('sends everything when the provider names no context window', () => {
    const sent = withinContextWindow({}, 'Be brief.', [], conversation);
    expect(sent).toMatchObject({ systemPrompt: 'Be brief.', omitted: 0 });
    expect(sent.messages).toHaveLength(3);
  });

  it("keeps the answer's reserve, the system prompt and the tools out of the budget, and says what it left out", () => {
    // 6000 characters are 2000 tokens: a 4096 window less a 1024 reserve keeps the later of the two long messages.
    const roomy = withinContextWindow({ contextWindowTokens: 4096, maxTokens: 1024 }, 'Be brief.', [], conversation);
    expect(roomy.messages.map((m) => m.content?.length)).toEqual([6000, 8]);
    expect(roomy.messages[0].role).toBe('assistant');
    expect(roomy.systemPrompt).toBe(
      "Be brief.\n\n[1 earlier message of this conversation left out to fit the model's context window.]",
    );
    // Large tool schemas take their share of the window: both long messages go.
    const tools = [{ type: 'function', function: { name: 'big', parameters: { description: 'd'.repeat(4000) } } }];
    const withTools = withinContextWindow({ contextWindowTokens: 4096, maxTokens: 1024 }, null, tools, conversation);
    expect(withTools.messages.map((m) => m.content)).toEqual(['now this']);
    expect(withTools.systemPrompt).toBe(
      "[2 earlier messages of this conversation left out to fit the model's context window.]",
    );
  });
});
