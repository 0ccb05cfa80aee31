/**
 * How deep JSON may nest wherever the gateway reads it (request bodies, string `arguments`, tool schemas).
 * Deeper input is refused with a 400 before anything recursive (canonical JSON, ajv, redaction,
 * class-transformer) walks it: about 5,000 levels overflowed the stack and answered 500.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text (a string, or its UTF-8 bytes) opens more than `max` objects/arrays inside one
 * another. One pass over the text, no parsing; brackets inside strings do not count. Invalid JSON is
 * left to the parser.
 */
export function jsonTextNestsDeeperThan(text: string | Uint8Array, max: number = MAX_JSON_DEPTH): boolean {
  const isString = typeof text === 'string';
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = isString ? text.charCodeAt(i) : text[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

/** True when a parsed value nests objects/arrays more than `max` levels (iterative: no recursion to overflow). */
export function jsonValueNestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** The message of a refusal, naming where and how to fix it. */
export function tooDeepProblem(max: number = MAX_JSON_DEPTH): string {
  return `is nested deeper than ${max} levels of objects/arrays; flatten it to at most ${max} levels`;
}
