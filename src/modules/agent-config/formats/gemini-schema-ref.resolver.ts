import { pointerTokenText } from './tool-spec-schema.walk';

/**
 * Resolves the `$ref`s the Gemini rewrite can inline: local ones only (`#`, `#/$defs/X`,
 * `#/definitions/X`, any JSON pointer into the document, and `#name` anchors). A ref to another
 * document, or one that points nowhere, resolves to `undefined`.
 */
export class GeminiSchemaRefResolver {
  private anchors?: Map<string, unknown>;

  constructor(private readonly root: unknown) {}

  resolve(ref: string): unknown {
    if (!ref.startsWith('#')) return undefined;
    let fragment: string;
    try {
      fragment = decodeURIComponent(ref.slice(1));
    } catch {
      return undefined;
    }
    if (fragment === '') return this.root;
    if (fragment.startsWith('/')) return this.walk(fragment.slice(1).split('/'));
    return this.anchorMap().get(fragment);
  }

  private walk(tokens: string[]): unknown {
    let node: unknown = this.root;
    for (const raw of tokens) {
      const token = pointerTokenText(raw);
      if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token)) node = node[Number(token)];
      else if (typeof node === 'object' && node !== null && !Array.isArray(node) && Object.hasOwn(node, token)) {
        node = (node as Record<string, unknown>)[token];
      } else return undefined;
    }
    return node;
  }

  /** `$anchor: "name"` (2019-09+) and `$id: "#name"` (draft 6/7), found on first use in one walk. */
  private anchorMap(): Map<string, unknown> {
    if (this.anchors) return this.anchors;
    const anchors = new Map<string, unknown>();
    const seen = new Set<object>();
    const stack: unknown[] = [this.root];
    while (stack.length > 0) {
      const node = stack.pop();
      if (typeof node !== 'object' || node === null || seen.has(node)) continue;
      seen.add(node);
      if (!Array.isArray(node)) {
        const { $anchor, $id } = node as Record<string, unknown>;
        if (typeof $anchor === 'string' && !anchors.has($anchor)) anchors.set($anchor, node);
        const legacy = typeof $id === 'string' && $id.startsWith('#') ? $id.slice(1) : undefined;
        if (legacy !== undefined && !anchors.has(legacy)) anchors.set(legacy, node);
      }
      for (const child of Object.values(node)) stack.push(child);
    }
    this.anchors = anchors;
    return anchors;
  }
}
