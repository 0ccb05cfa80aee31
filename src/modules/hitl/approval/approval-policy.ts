import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import type { SideEffectPolicy } from '@app/modules/agent-config/agent-config.types';
import type { RiskMatch } from '@app/modules/risk/risk.types';

export type ApprovalTrigger = 'HIGH_RISK_TOOL' | 'SIDE_EFFECT_POLICY' | 'RISKY_ARGUMENTS';

export interface ApprovalNeed {
  trigger: ApprovalTrigger;
  /** Human-readable, names the matched rules: becomes the request's triggerReason. */
  reason: string;
  rules: RiskMatch[];
}

/**
 * Whether a call needs a human first (pure): a HIGH_RISK tool always; SIDE_EFFECT and HIGH_RISK tools under
 * the agent's APPROVE_SIDE_EFFECTS policy; any call whose arguments the risk detector flags.
 */
export function approvalNeed(
  tool: Pick<ToolDescriptor, 'name' | 'sideEffect'>,
  sideEffectPolicy: SideEffectPolicy | null,
  riskyArguments: readonly RiskMatch[],
): ApprovalNeed | null {
  if (riskyArguments.length > 0) {
    const names = [...new Set(riskyArguments.map((r) => r.rule))].join(', ');
    const first = riskyArguments[0];
    return {
      trigger: 'RISKY_ARGUMENTS',
      reason: `risky arguments: ${names} (e.g. "${first.match}")`,
      rules: [...riskyArguments],
    };
  }
  if (tool.sideEffect === 'HIGH_RISK') {
    return {
      trigger: 'HIGH_RISK_TOOL',
      reason: `${tool.name} is declared HIGH_RISK: every call needs approval`,
      rules: [],
    };
  }
  if (sideEffectPolicy === 'APPROVE_SIDE_EFFECTS' && tool.sideEffect === 'SIDE_EFFECT') {
    return {
      trigger: 'SIDE_EFFECT_POLICY',
      reason: `the agent's policy APPROVE_SIDE_EFFECTS requires approval of ${tool.name} (SIDE_EFFECT)`,
      rules: [],
    };
  }
  return null;
}
