import { bindLogFields, fieldLine, isFieldLine, requestLogFields } from './log-context';

describe('request log fields', () => {
  it('are one object per request, so work handed them earlier sees what is bound later', () => {
    const request = { id: 'req-1' };
    const handed = requestLogFields(request);
    bindLogFields(requestLogFields(request), { tenantId: 'acme' });
    bindLogFields(handed, { sessionId: 's-1' });
    expect(requestLogFields(request)).toBe(handed);
    expect(handed).toEqual({ requestId: 'req-1', tenantId: 'acme', sessionId: 's-1' });
    expect(requestLogFields({ id: 'req-2' })).toEqual({ requestId: 'req-2' });
  });

  it('binds nothing for work outside a request', () => {
    expect(() => bindLogFields(undefined, { sessionId: 's-1' })).not.toThrow();
  });
});

describe('fieldLine', () => {
  it("puts the work's fields beside the message, later fields winning and absent ones skipped", () => {
    const line = fieldLine('Tool x failed', { requestId: 'r', tool: 'old' }, undefined, { tool: 'x', toolCallId: 'c' });
    expect(line).toEqual({ msg: 'Tool x failed', requestId: 'r', tool: 'x', toolCallId: 'c' });
    expect(isFieldLine(line)).toBe(true);
  });

  it('copies the fields when the line is written: a later bind does not change it', () => {
    const fields = { requestId: 'r' };
    const line = fieldLine('m', fields);
    bindLogFields(fields, { tenantId: 't' });
    expect(line).toEqual({ msg: 'm', requestId: 'r' });
  });

  it('tells a line with fields from other logged values', () => {
    for (const value of ['text', null, { note: 1 }, { msg: 3 }]) expect(isFieldLine(value)).toBe(false);
  });
});
