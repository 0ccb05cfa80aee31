import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH, tooDeepProblem } from '@app/common/json-depth';

/** The model's `arguments`: an object, or a JSON string of one (as models emit them). */
export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string };

export function parseToolArguments(raw: unknown): ParsedArguments {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { ok: true, value: {} };
    // An object body is bounded by the body parser; a JSON string is read here, so it is bounded here.
    if (jsonTextNestsDeeperThan(raw, MAX_JSON_DEPTH))
      return { ok: false, problem: `arguments ${tooDeepProblem(MAX_JSON_DEPTH)}` };
    try {
      value = JSON.parse(raw);
    } catch (err) {
      // V8 quotes an excerpt of the text; the problem is stored and logged, so it names the flaw, never the text.
      return {
        ok: false,
        problem: `arguments are not valid JSON (${(err as Error).message.replace(/"[\s\S]*"/, '...')}); send a JSON object`,
      };
    }
  }
  if (value === undefined || value === null) return { ok: true, value: {} };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      problem: `arguments must be a JSON object, not ${Array.isArray(value) ? 'an array' : typeof value}`,
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
