import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import type { ModelFormat } from '../formats/model-formats';
import { isImplicitlyBound } from './visibility-layers';
import type { VisibilityDecision } from './visibility.types';

/**
 * The most tools one model request may carry, per format. OpenAI (Chat Completions and the Responses API) refuses
 * the whole request above 128 ("Invalid 'tools': array too long. Expected an array with maximum length 128",
 * `array_above_max_length`); Vertex AI documents "Maximum 128 function declarations can be provided" for Gemini.
 * Anthropic documents no such cap.
 */
export const MAX_TOOLS_PER_REQUEST: Readonly<Partial<Record<ModelFormat, number>>> = {
  openai: 128,
  'openai-responses': 128,
  gemini: 128,
};

/**
 * The visible tools (in name order) cut to the format's cap, so the provider accepts the list: the tool a toolChoice
 * forces and the implicit built-ins are kept first, then the others in name order. Each tool left out is hidden at
 * POLICY in `decisions` (explain), saying why and how to fix it.
 */
export function capToolCount(
  format: ModelFormat,
  tools: ToolDescriptor[],
  decisions: VisibilityDecision[],
  forced: ToolDescriptor | undefined,
): { tools: ToolDescriptor[]; decisions: VisibilityDecision[] } {
  const cap = MAX_TOOLS_PER_REQUEST[format];
  if (cap === undefined || tools.length <= cap) return { tools, decisions };
  const first = tools.filter((t) => t === forced || isImplicitlyBound(t));
  const kept = new Set([...first, ...tools.filter((t) => !first.includes(t))].slice(0, cap));
  const reason =
    `${tools.length} tools passed every layer, but a ${format} request takes at most ${cap} (the provider refuses the ` +
    `whole request above that); the first ${cap} by name are emitted. Bind fewer tools to this agent, or narrow them ` +
    'with permission tags.';
  const left = new Set(tools.filter((t) => !kept.has(t)).map((t) => t.id));
  return {
    tools: tools.filter((t) => kept.has(t)),
    decisions: decisions.map((d) =>
      d.visible && left.has(d.toolId) ? { ...d, visible: false, layer: 'POLICY', reason } : d,
    ),
  };
}
