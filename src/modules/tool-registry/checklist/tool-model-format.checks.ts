import {
  anthropicSpecViolations,
  emitToolSpec,
  geminiSpecViolations,
  openAiSpecViolations,
  type EmittedToolSpec,
  type OpenAiToolSpec,
} from '@app/modules/agent-config/formats/model-formats';
import type { ChecklistTool, ToolChecklistItem } from './tool-checklist.types';

/**
 * MODEL_*: each format's spec as the gateway would emit it, run through that provider's validator (the
 * same code tool-specs uses), so "MODEL_GEMINI: PASS" means the emitted spec passes. WARN names a lossy
 * rewrite the model will see, with the emitter's own warnings (the ones an explained tool-specs answer shows);
 * FAIL means the provider would refuse the emitted spec (a gateway bug to report).
 */
export function modelFormatChecks(
  tool: Pick<ChecklistTool, 'name' | 'description' | 'parameters'>,
): ToolChecklistItem[] {
  const source = { name: tool.name, description: tool.description, parameters: tool.parameters };
  const emitted = (variant: Parameters<typeof emitToolSpec>[0]) =>
    safely(() => emitToolSpec(variant, source), undefined);
  const items: ToolChecklistItem[] = [formatItem('MODEL_OPENAI', 'OpenAI', emitted('openai'), openAiSpecViolations)];
  const strict = emitted('openai-strict');
  if (!strict)
    items.push({
      check: 'MODEL_OPENAI_STRICT',
      status: 'FAIL',
      message: 'The strict spec could not be built from this schema.',
    });
  else if ((strict.spec as OpenAiToolSpec).function.strict === true)
    items.push({
      check: 'MODEL_OPENAI_STRICT',
      status: 'PASS',
      message: 'Emitted with strict: true in strict requests.',
    });
  else
    items.push({
      check: 'MODEL_OPENAI_STRICT',
      status: 'WARN',
      message: `Emitted with strict: false in strict requests: ${strict.warnings.join('; ')}.`,
    });
  items.push(formatItem('MODEL_ANTHROPIC', 'Anthropic', emitted('anthropic'), anthropicSpecViolations));
  items.push(formatItem('MODEL_GEMINI', 'Gemini', emitted('gemini'), geminiSpecViolations));
  return items;
}

function formatItem(
  check: ToolChecklistItem['check'],
  provider: string,
  emitted: EmittedToolSpec | undefined,
  violations: (spec: unknown) => string[],
): ToolChecklistItem {
  if (!emitted)
    return { check, status: 'FAIL', message: `${provider} would refuse the emitted spec: it could not be emitted.` };
  const problems = safely(() => violations(emitted.spec), ['it could not be checked']);
  if (problems.length > 0)
    return { check, status: 'FAIL', message: `${provider} would refuse the emitted spec: ${problems.join('; ')}.` };
  if (emitted.warnings.length > 0)
    return {
      check,
      status: 'WARN',
      message: `${provider} accepts the emitted spec, rewritten: ${[...new Set(emitted.warnings)].join('; ')}.`,
    };
  return { check, status: 'PASS', message: `${provider} accepts the emitted spec as the schema is.` };
}

function safely<T>(run: () => T, fallback: T): T {
  try {
    return run();
  } catch {
    return fallback;
  }
}
