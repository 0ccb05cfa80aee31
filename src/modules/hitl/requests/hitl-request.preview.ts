/** Most characters of JSON a review-queue entry shows of a call's arguments. */
export const HITL_PARAMS_MAX_CHARS = 4000;
/** Deepest nesting shown; deeper values become "…". */
const HITL_PARAMS_MAX_DEPTH = 32;
/** Most characters of a request's promptMessage and triggerReason. */
export const HITL_TEXT_MAX_CHARS = 2000;

/** What `toolParams` becomes when the (already redacted) arguments are too big or too deep to show whole. */
export interface TruncatedParams {
  $truncated: string;
  /** The start of the arguments' JSON text. */
  preview: string;
}

/**
 * The arguments as the review queue stores and shows them: the value itself when its JSON fits in
 * {@link HITL_PARAMS_MAX_CHARS} and {@link HITL_PARAMS_MAX_DEPTH}, else a {@link TruncatedParams} marker. Written
 * without ever building more than the cap (no 8 MB string, no stack overflow on deep nesting). The full
 * arguments stay with the pending call (and the journal), and are what a decision runs.
 */
export function previewParams(value: unknown): unknown {
  const { json, complete } = boundedJson(value, HITL_PARAMS_MAX_CHARS, HITL_PARAMS_MAX_DEPTH);
  if (complete) return value;
  return {
    $truncated: `toolParams shortened for review (over ${HITL_PARAMS_MAX_CHARS} characters of JSON or deeper than ${HITL_PARAMS_MAX_DEPTH} levels); the call runs with its full arguments`,
    preview: json.slice(0, HITL_PARAMS_MAX_CHARS),
  } satisfies TruncatedParams;
}

/** Text cut at {@link HITL_TEXT_MAX_CHARS}, saying how much was left out. */
export function previewText(text: string): string {
  return text.length <= HITL_TEXT_MAX_CHARS
    ? text
    : `${text.slice(0, HITL_TEXT_MAX_CHARS)}… (${text.length - HITL_TEXT_MAX_CHARS} more characters)`;
}

/** JSON text of `value`, stopping once longer than `maxChars` or deeper than `maxDepth` (complete: false). */
export function boundedJson(value: unknown, maxChars: number, maxDepth: number): { json: string; complete: boolean } {
  let out = '';
  let complete = true;
  const full = () => out.length > maxChars;
  const emit = (v: unknown, depth: number): void => {
    if (typeof v === 'string' && v.length > maxChars) {
      out += JSON.stringify(v.slice(0, maxChars + 1));
      complete = false;
      return;
    }
    if (v === null || typeof v !== 'object') {
      out += JSON.stringify(v) ?? 'null';
      return;
    }
    if (depth >= maxDepth) {
      out += '"…"';
      complete = false;
      return;
    }
    const array = Array.isArray(v);
    out += array ? '[' : '{';
    let first = true;
    for (const [k, inner] of array ? v.entries() : Object.entries(v)) {
      if (full()) break;
      if (!array && (inner === undefined || typeof inner === 'function')) continue;
      if (!first) out += ',';
      first = false;
      if (!array) out += `${JSON.stringify(k)}:`;
      emit(inner, depth + 1);
    }
    out += array ? ']' : '}';
  };
  emit(value, 0);
  return { json: out, complete: complete && !full() };
}
