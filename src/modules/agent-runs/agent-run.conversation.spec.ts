import { assignJournalKeys, toChatMessages, usedJournalKeys } from './agent-run.conversation';
import type { ConversationMessage } from './agent-runs.types';

const RUN = '11111111-2222-3333-4444-555555555555';

describe('assignJournalKeys', () => {
  it("keeps the model's ids when the session never used them", () => {
    const keys = assignJournalKeys([{ id: 'call_a', name: 't', arguments: '{}' }], new Set(['call_b']), RUN, 1);
    expect(keys).toEqual([{ id: 'call_a', key: 'call_a', name: 't', arguments: '{}' }]);
  });

  it('qualifies an id the session used before', () => {
    const calls = [{ id: 'call_0', name: 't', arguments: '{"a":1}' }];
    const keys = assignJournalKeys(calls, new Set(['call_0']), RUN, 4).map((c) => c.key);
    expect(keys).toEqual([`call_0@${RUN}:4`]);
  });

  it('gives a call whose id another call of the answer has an id of its own, so each answer has one call', () => {
    const calls = [
      { id: 'call_0', name: 't', arguments: '{"a":1}' },
      { id: 'call_0', name: 't', arguments: '{"a":2}' },
      { id: 'call_0', name: 'u', arguments: '{"a":1}' },
    ];
    // The conversation's ids are short (OpenAI takes at most 40 characters); the journal keys are the contract's
    // qualified form of the model's id, as for an id repeated across turns.
    expect(assignJournalKeys(calls, new Set(['call_0']), RUN, 4)).toEqual([
      { id: 'call_0', key: `call_0@${RUN}:4`, name: 't', arguments: '{"a":1}' },
      { id: 'call_11111111_4_1', key: `call_0@${RUN}:4.2`, name: 't', arguments: '{"a":2}' },
      { id: 'call_11111111_4_2', key: `call_0@${RUN}:4.3`, name: 'u', arguments: '{"a":1}' },
    ]);
    expect(assignJournalKeys(calls.slice(0, 2), new Set(), RUN, 1).map((c) => c.key)).toEqual([
      'call_0',
      `call_0@${RUN}:1`,
    ]);
  });

  it('keeps the same call made twice in one answer (id, name and arguments) once', () => {
    const calls = [
      { id: 'call_0', name: 't', arguments: '{"a":1}' },
      { id: 'call_0', name: 't', arguments: '{"a":2}' },
      { id: 'call_0', name: 't', arguments: '{"a":1}' },
      { id: 'call_0', name: 't', arguments: '{"a":2}' },
    ];
    expect(assignJournalKeys(calls, new Set(), RUN, 1).map((c) => [c.id, c.arguments])).toEqual([
      ['call_0', '{"a":1}'],
      ['call_11111111_1_1', '{"a":2}'],
    ]);
  });

  it("never gives a call an id the model gave another call of the answer, the gateway's own form included", () => {
    const calls = [
      { id: 'x', name: 't', arguments: '{"a":1}' },
      { id: 'x', name: 't', arguments: '{"a":2}' },
      { id: 'call_11111111_1_1', name: 't', arguments: '{"a":3}' },
    ];
    const ids = assignJournalKeys(calls, new Set(), RUN, 1).map((c) => c.id);
    expect(new Set(ids).size).toBe(3);
  });

  it('marks the last call of an answer cut at the token limit truncated when its arguments are incomplete or absent', () => {
    const cut = (args: string, cutShort = true) =>
      assignJournalKeys(
        [
          { id: 'a', name: 't', arguments: '{"q":' },
          { id: 'b', name: 't', arguments: args },
        ],
        new Set(),
        RUN,
        1,
        cutShort,
      ).map((c) => c.truncated ?? false);
    // Only the last call can be cut: an earlier one's bad JSON is the model's own, for act to refuse.
    expect(cut('{"q":"ab')).toEqual([false, true]);
    expect(cut('')).toEqual([false, true]);
    expect(cut('{"q":"abc"}')).toEqual([false, false]);
    expect(cut('{"q":"ab', false)).toEqual([false, false]);
  });

  it('gives a call without a usable id one, reads empty arguments as {}, and bounds long keys', () => {
    const [missing, long] = assignJournalKeys(
      [
        { id: '', name: 't', arguments: '  ' },
        { id: 'x'.repeat(110), name: 't', arguments: '{}' },
      ],
      new Set(['x'.repeat(110)]),
      RUN,
      2,
    );
    expect(missing).toMatchObject({ id: 'call_11111111_2_0', key: 'call_11111111_2_0', arguments: '{}' });
    expect(long.key.length).toBeLessThanOrEqual(120);
    expect(long.key).not.toBe(long.id);
  });
});

describe('toChatMessages', () => {
  const conversation: ConversationMessage[] = [
    { seq: 1, runId: RUN, role: 'user', content: 'hi', toolCalls: null, toolCallId: null, createdAt: 0 },
    {
      seq: 2,
      runId: RUN,
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'c1', key: 'c1@r:1', name: 'lookup', arguments: '{"q":1}' }],
      toolCallId: null,
      createdAt: 0,
    },
    { seq: 3, runId: RUN, role: 'tool', content: 'found', toolCalls: null, toolCallId: 'c1', createdAt: 0 },
    { seq: 4, runId: RUN, role: 'assistant', content: 'done', toolCalls: null, toolCallId: null, createdAt: 0 },
  ];

  it('puts the system prompt first and answers each tool call by the id the model gave it', () => {
    expect(toChatMessages('Be brief.', conversation)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'found' },
      { role: 'assistant', content: 'done' },
    ]);
    expect(toChatMessages(null, conversation)[0]).toEqual({ role: 'user', content: 'hi' });
  });

  it('sends a call whose arguments are no JSON object back with {}, so servers that parse them take the conversation', () => {
    const calls = (args: string): ConversationMessage => ({
      seq: 1,
      runId: RUN,
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'c', key: 'c', name: 'lookup', arguments: args }],
      toolCallId: null,
      createdAt: 0,
    });
    const sent = (args: string) =>
      (toChatMessages(null, [calls(args)])[0] as { tool_calls: Array<{ function: { arguments: string } }> })
        .tool_calls[0].function.arguments;
    expect(sent('{"q": 1}')).toBe('{"q": 1}');
    for (const broken of ['{"q": ', '"q"', '[1]', 'null']) expect(sent(broken)).toBe('{}');
  });

  it('sends empty text beside tool calls as null, and leaves out an assistant message with neither', () => {
    const [user, calls, result] = conversation;
    const sent = toChatMessages(null, [
      user,
      { ...calls, content: '' },
      result,
      { ...conversation[3], content: '' },
      { ...user, seq: 5 },
    ]);
    expect(sent.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hi'],
      ['assistant', null],
      ['tool', 'found'],
      ['user', 'hi'],
    ]);
  });

  it('collects the journal keys the session used', () => {
    expect([...usedJournalKeys(conversation)]).toEqual(['c1@r:1']);
  });
});
