import { createHash } from 'node:crypto';
import { canonicalJson } from '@app/common/canonical-json';

/** What identifies "the same call": the tool name and the canonical arguments. */
export function callFingerprint(toolName: string, args: unknown): string {
  return createHash('sha256').update(toolName).update('\n').update(canonicalJson(args)).digest('hex');
}
