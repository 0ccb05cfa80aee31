import { GeminiSchemaRefResolver } from '@app/modules/agent-config/formats/gemini-schema-ref.resolver';

type Raw = Record<string, unknown>;

const isRaw = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose subschemas apply to the value the schema holding them applies to (not to a part of it). */
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_SINGLES = ['not', 'if', 'then', 'else'] as const;
const IN_PLACE_MAPS = ['dependentSchemas', 'dependencies'] as const;
/** Keywords whose subschemas apply to a part of the value (a property, an item): recursion through them ends. */
const DESCENDING_SINGLES = [
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
] as const;
const DESCENDING_LISTS = ['prefixItems', 'items'] as const;
const DESCENDING_MAPS = ['properties', 'patternProperties'] as const;

/**
 * The local `$ref` through which `schema` refers back to itself without descending into the value (e.g.
 * `allOf: [{$ref: "#"}]`, or two definitions whose refs point at each other), or null when there is none. ajv
 * compiles such a schema, but checking any value against it recurses until the stack overflows; the emitters
 * that merge refs would loop the same way.
 */
export function inPlaceRefLoop(schema: unknown): string | null {
  const refs = new GeminiSchemaRefResolver(schema);
  const nodes = reachableNodes(schema, refs);
  const state = new Map<object, 'open' | 'done'>();
  for (const start of nodes) {
    if (state.has(start)) continue;
    // Iterative depth-first search over the in-place edges: a node reached while still open closes a loop.
    const stack: { node: Raw; edges: [string | null, Raw][]; next: number }[] = [
      { node: start, edges: inPlaceEdges(start, refs), next: 0 },
    ];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.next >= top.edges.length) {
        state.set(top.node, 'done');
        stack.pop();
        continue;
      }
      const [ref, child] = top.edges[top.next++];
      const seen = state.get(child);
      if (seen === 'open') return ref ?? loopRefOnStack(stack) ?? '#';
      if (seen === 'done') continue;
      state.set(child, 'open');
      stack.push({ node: child, edges: inPlaceEdges(child, refs), next: 0 });
    }
  }
  return null;
}

/** A ref on the open path, to name the loop when the edge that closed it was not a ref. */
function loopRefOnStack(stack: { node: Raw }[]): string | null {
  for (let i = stack.length - 1; i >= 0; i--)
    if (typeof stack[i].node.$ref === 'string') return stack[i].node.$ref as string;
  return null;
}

/** The subschemas that apply to the same value as `node`, each with the `$ref` that led there (if one did). */
function inPlaceEdges(node: Raw, refs: GeminiSchemaRefResolver): [string | null, Raw][] {
  const edges: [string | null, Raw][] = [];
  if (typeof node.$ref === 'string') {
    const target = refs.resolve(node.$ref);
    if (isRaw(target)) edges.push([node.$ref, target]);
  }
  for (const key of IN_PLACE_LISTS) {
    const members = node[key];
    if (Array.isArray(members)) for (const m of members) if (isRaw(m)) edges.push([null, m]);
  }
  for (const key of IN_PLACE_SINGLES) if (isRaw(node[key])) edges.push([null, node[key]]);
  for (const key of IN_PLACE_MAPS) {
    const map = node[key];
    if (isRaw(map)) for (const m of Object.values(map)) if (isRaw(m)) edges.push([null, m]);
  }
  return edges;
}

/**
 * Every subschema a check of a value can reach from the root (through applicators and refs), root first: a loop in
 * a definition nothing uses never runs.
 */
function reachableNodes(root: unknown, refs: GeminiSchemaRefResolver): Raw[] {
  const out: Raw[] = [];
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isRaw(node) || seen.has(node)) continue;
    seen.add(node);
    out.push(node);
    if (typeof node.$ref === 'string') stack.push(refs.resolve(node.$ref));
    for (const key of [...IN_PLACE_SINGLES, ...DESCENDING_SINGLES]) if (isRaw(node[key])) stack.push(node[key]);
    for (const key of [...IN_PLACE_LISTS, ...DESCENDING_LISTS]) {
      const list = node[key];
      if (Array.isArray(list)) stack.push(...(list as unknown[]));
    }
    for (const key of [...IN_PLACE_MAPS, ...DESCENDING_MAPS]) {
      const map = node[key];
      if (isRaw(map)) stack.push(...Object.values(map));
    }
  }
  return out;
}
