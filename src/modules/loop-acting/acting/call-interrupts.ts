import { redact, redactQuotingText } from '@app/common/redaction';
import type { ReadyCall } from '@app/modules/tool-invocation/tool-call.preparer';
import type { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import type { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';
import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { parseToolArguments } from '@app/modules/tool-invocation/tool-arguments.parser';
import { callFingerprint } from '../journal/journal-fingerprint';
import type { JournalEntry } from '../journal/journal.types';
import type { SubmittedCall } from '../sessions/session.types';
import type { InterruptSpec } from './acting.types';

/**
 * The fingerprint of a submitted call (arguments parsed when they are JSON, else the raw text); of a call rebuilt from
 * its journal entry, the entry's.
 */
export function fingerprintOf(call: SubmittedCall): string {
  if (call.stored) return call.stored.fingerprint;
  const parsed = parseToolArguments(call.arguments);
  return callFingerprint(call.name, parsed.ok ? parsed.value : call.arguments);
}

export function approvalInterrupt(call: SubmittedCall, prepared: ReadyCall, fingerprint: string): InterruptSpec {
  const need = prepared.approval!;
  return {
    requestType: 'TOOL_APPROVAL',
    call,
    toolName: prepared.tool.name,
    toolId: prepared.tool.id,
    fingerprint,
    args: prepared.args,
    redactFields: prepared.tool.result?.redactFields ?? [],
    triggerReason: need.reason,
    promptMessage:
      prepared.tool.hitl?.approvalText ??
      `Approve ${prepared.tool.name}? The gateway stopped this call because ${need.reason}.`,
    rules: need.rules,
  };
}

/**
 * The tool a journal entry was claimed for, whose `redactFields` hide its arguments: found by the entry's tool id, as
 * the name it was called by may have been renamed since (then it names no tool) or taken by another tool. `byName` is
 * what that name resolves to now, when the caller has it; it is also the answer for an entry without a tool id.
 */
export async function toolOfEntry(
  entry: Pick<JournalEntry, 'toolId' | 'toolName' | 'tenantId'>,
  tools: Pick<ToolRegistryService, 'findById' | 'findByNameInScope'>,
  byName?: ToolDescriptor | null,
): Promise<ToolDescriptor | null> {
  if (entry.toolId !== null && byName?.id !== entry.toolId) {
    const claimed = await tools.findById(entry.toolId);
    if (claimed) return claimed;
  }
  return byName !== undefined ? byName : tools.findByNameInScope(entry.toolName, entry.tenantId);
}

/**
 * Whether a call left STARTED by a dead owner runs again when it is submitted again, instead of becoming an
 * UNKNOWN_OUTCOME request: a READ_ONLY call, or a call to a built-in that keys its effect by the toolCallId (a sub-agent
 * call finds the child its first attempt started). `tool`: the tool the entry was claimed for, as it is now (null when
 * it is gone or no longer callable: then a human decides).
 */
export function runsAgainAfterCrash(
  entry: Pick<JournalEntry, 'sideEffect' | 'toolId'>,
  tool: ToolDescriptor | null,
  catalog: Pick<BuiltinToolCatalog, 'runsAgainAfterCrash'>,
): boolean {
  if (entry.sideEffect === 'READ_ONLY') return true;
  return tool !== null && tool.id === entry.toolId && catalog.runsAgainAfterCrash(tool);
}

/** `redactFields`: the tool's `result.redactFields` (the journal entry does not keep them; see toolOfEntry). */
export function unknownOutcomeInterrupt(
  call: SubmittedCall,
  entry: JournalEntry,
  redactFields: readonly string[] = [],
): InterruptSpec {
  let args: unknown = entry.argumentsJson;
  try {
    args = JSON.parse(entry.argumentsJson);
  } catch {
    /* shown as stored */
  }
  return {
    requestType: 'UNKNOWN_OUTCOME',
    call,
    toolName: entry.toolName,
    toolId: entry.toolId,
    fingerprint: entry.fingerprint,
    args,
    redactFields,
    triggerReason: `the gateway process that was running ${entry.toolName} (${entry.owner}) stopped before recording the outcome; the call may or may not have taken effect`,
    promptMessage: `${entry.toolName} was started at ${new Date(entry.startedAt).toISOString()} but its outcome is unknown. Check the target system, then RETRY it, MARK_DONE (your message becomes the result) or REJECT it.`,
    rules: [],
  };
}

/** What the session, the review queue and the log may show of an interrupt: arguments and quoted snippets redacted. */
export function shownInterrupt(spec: InterruptSpec): {
  toolParams: unknown;
  triggerReason: string;
  promptMessage: string;
} {
  return {
    toolParams: redact(spec.args, spec.redactFields),
    triggerReason: redactQuotingText(spec.triggerReason, spec.rules, spec.redactFields),
    promptMessage: redactQuotingText(spec.promptMessage, spec.rules, spec.redactFields),
  };
}
