import { endedEarly, MAX_FINISH_REASON_CHARS } from './model-finish-reason';

describe('endedEarly', () => {
  it('is undefined for an answer that ended as the model meant it', () => {
    for (const reason of ['', 'stop', 'eos_token', 'stop_sequence', 'end_turn'])
      expect(endedEarly(reason, false)).toBe(undefined);
    expect(endedEarly('tool_calls', true)).toBe(undefined);
    expect(endedEarly('function_call', true)).toBe(undefined);
  });

  it('names a cut, a filter, a reason of the provider and a tool-call end without a call', () => {
    expect(endedEarly('length', true)).toBe('length');
    expect(endedEarly('content_filter', false)).toBe('content_filter');
    expect(endedEarly('insufficient_system_resource', false)).toBe('insufficient_system_resource');
    expect(endedEarly('tool_calls', false)).toBe('tool_calls');
    expect(endedEarly('x'.repeat(500), false)).toHaveLength(MAX_FINISH_REASON_CHARS);
  });
});
