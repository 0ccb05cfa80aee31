/**
 * Reading the syntax tree of mvdan-sh 0.10.1 (the Go shell parser compiled to JS by GopherJS; the parse itself is in
 * risk-shell-statements.parser.ts).
 *
 * Why the GopherJS internals: the package's public wrapper converts a Go node to a JS proxy on every
 * property read (about 20 µs each), so a full walk of a short command costs ~1 ms. The wrapper's
 * `__internal_object__` is the Go struct itself: fields are plain properties, slices are
 * `{$array, $offset, $length}`, a node's type is `constructor.string` ("*syntax.CallExpr"), strings are
 * UTF-8 bytes held one per JS char, and positions are byte offsets. The package is pinned (its last release).
 */

/** A Go struct of the shell syntax tree, read through its GopherJS representation. */
export interface GoNode {
  readonly constructor: { readonly string?: string; readonly nil?: unknown };
  readonly [field: string]: unknown;
}

interface GoSlice {
  readonly $array: unknown[];
  readonly $offset: number;
  readonly $length: number;
}

interface GoPos {
  readonly offs: number;
}

/** The node's syntax type ("CallExpr", "Word" ...), or undefined for a nil pointer or interface. */
export function nodeKind(node: unknown): string | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const ctor = (node as GoNode).constructor;
  const name = ctor?.string;
  if (name === undefined || node === ctor.nil || !name.startsWith('*syntax.')) return undefined;
  return name.slice(8);
}

/** The elements of a Go slice field. */
export function nodeList(slice: unknown): GoNode[] {
  const s = slice as GoSlice | undefined;
  if (!s || !Array.isArray(s.$array) || !s.$length) return [];
  return s.$array.slice(s.$offset, s.$offset + s.$length) as GoNode[];
}

export function nodeField(node: GoNode, field: string): GoNode | undefined {
  const child = node[field];
  return nodeKind(child) === undefined ? undefined : (child as GoNode);
}

/** Byte offsets [start, end) of a node in the parsed source. */
export function nodeSpan(node: GoNode): [number, number] {
  const pos = node as unknown as { Pos(): GoPos; End(): GoPos };
  return [pos.Pos().offs, pos.End().offs];
}

/** Converts a Go string (UTF-8 bytes, one per char) to a JS string. */
export function goString(value: unknown): string {
  const s = typeof value === 'string' ? value : '';
  // eslint-disable-next-line no-control-regex -- any character beyond ASCII
  return /[^\x00-\x7f]/.test(s) ? Buffer.from(s, 'latin1').toString('utf8') : s;
}

/** The parsed text, sliced by the parser's byte offsets. */
export class ShellSource {
  private readonly bytes: Buffer | undefined;

  constructor(readonly text: string) {
    // eslint-disable-next-line no-control-regex -- any character beyond ASCII
    this.bytes = /[^\x00-\x7f]/.test(text) ? Buffer.from(text, 'utf8') : undefined;
  }

  slice(start: number, end: number): string {
    return this.bytes ? this.bytes.subarray(start, end).toString('utf8') : this.text.slice(start, end);
  }

  of(node: GoNode): string {
    const [start, end] = nodeSpan(node);
    return this.slice(start, end);
  }
}
