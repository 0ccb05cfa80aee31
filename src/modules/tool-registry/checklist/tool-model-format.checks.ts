import {
  anthropicSpecViolations,
  emitToolSpec,
  geminiSpecViolations,
  openAiSpecViolations,
} from '@app/modules/agent-config/formats/model-formats';
import { toPortableSchema } from '@app/modules/agent-config/formats/portable-json-schema.converter';
import { toAnthropicInputSchema } from '@app/modules/agent-config/formats/anthropic-tool-spec.emitter';
import { OPENAI_MAX_DESCRIPTION_CHARS } from '@app/modules/agent-config/formats/openai-spec.validator';
import type { ChecklistTool, ToolChecklistItem } from './tool-checklist.types';

/**
 * MODEL_*: each format's spec as the gateway would emit it, run through that provider's validator (the
 * same code tool-specs uses), so "MODEL_GEMINI: PASS" means the emitted spec passes. WARN names a lossy
 * rewrite the model will see; FAIL means the provider would refuse the emitted spec (a gateway bug to report).
 */
export function modelFormatChecks(
  tool: Pick<ChecklistTool, 'name' | 'description' | 'parameters'>,
): ToolChecklistItem[] {
  const source = { name: tool.name, description: tool.description, parameters: tool.parameters };
  const portableNotes = safely(() => toPortableSchema(source.parameters).notes, []);
  const openAiNotes = [...portableNotes];
  if (tool.description.length > OPENAI_MAX_DESCRIPTION_CHARS)
    openAiNotes.push(`description cut to ${OPENAI_MAX_DESCRIPTION_CHARS} characters`);
  const items: ToolChecklistItem[] = [
    formatItem('MODEL_OPENAI', 'OpenAI', () => openAiSpecViolations(emitToolSpec('openai', source).spec), openAiNotes),
  ];
  const strict = safely(() => emitToolSpec('openai-strict', source), undefined);
  if (!strict)
    items.push({
      check: 'MODEL_OPENAI_STRICT',
      status: 'FAIL',
      message: 'The strict spec could not be built from this schema.',
    });
  else if (strict.warnings.length === 0)
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
  items.push(
    formatItem(
      'MODEL_ANTHROPIC',
      'Anthropic',
      () => anthropicSpecViolations(emitToolSpec('anthropic', source).spec),
      safely(() => toAnthropicInputSchema(source.parameters).notes, []),
    ),
  );
  items.push(
    formatItem(
      'MODEL_GEMINI',
      'Gemini',
      () => geminiSpecViolations(emitToolSpec('gemini', source).spec),
      safely(() => emitToolSpec('gemini', source).warnings, []),
    ),
  );
  return items;
}

function formatItem(
  check: ToolChecklistItem['check'],
  provider: string,
  violations: () => string[],
  notes: string[],
): ToolChecklistItem {
  const problems = safely(violations, ['the spec could not be emitted']);
  if (problems.length > 0)
    return { check, status: 'FAIL', message: `${provider} would refuse the emitted spec: ${problems.join('; ')}.` };
  if (notes.length > 0)
    return {
      check,
      status: 'WARN',
      message: `${provider} accepts the emitted spec, rewritten: ${[...new Set(notes)].join('; ')}.`,
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
