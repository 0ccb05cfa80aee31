import { approvalNeed } from './approval-policy';

describe('approvalNeed', () => {
  const tool = (sideEffect: 'READ_ONLY' | 'IDEMPOTENT' | 'SIDE_EFFECT' | 'HIGH_RISK') => ({ name: 't', sideEffect });

  it('always asks for a HIGH_RISK tool', () => {
    expect(approvalNeed(tool('HIGH_RISK'), 'ALLOW', [])?.trigger).toBe('HIGH_RISK_TOOL');
    expect(approvalNeed(tool('HIGH_RISK'), null, [])?.trigger).toBe('HIGH_RISK_TOOL');
  });
  it('asks for side-effecting tools under APPROVE_SIDE_EFFECTS only', () => {
    expect(approvalNeed(tool('SIDE_EFFECT'), 'APPROVE_SIDE_EFFECTS', [])?.trigger).toBe('SIDE_EFFECT_POLICY');
    expect(approvalNeed(tool('SIDE_EFFECT'), 'ALLOW', [])).toBeNull();
    expect(approvalNeed(tool('IDEMPOTENT'), 'APPROVE_SIDE_EFFECTS', [])).toBeNull();
    expect(approvalNeed(tool('READ_ONLY'), 'APPROVE_SIDE_EFFECTS', [])).toBeNull();
  });
  it('asks when the arguments are risky, whatever the tool, naming the rules', () => {
    const need = approvalNeed(tool('READ_ONLY'), 'ALLOW', [{ rule: 'recursive-delete', match: 'rm -rf ./build' }]);
    expect(need?.trigger).toBe('RISKY_ARGUMENTS');
    expect(need?.reason).toContain('recursive-delete');
    expect(need?.reason).toContain('rm -rf ./build');
  });
});
