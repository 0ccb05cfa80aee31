/**
 * The JSON pointer (RFC 6901, in its `#` fragment form as `$ref` writes it) of a child of the schema node at `parent`:
 * `childPointer('#', 'properties', 'a/b')` is `#/properties/a~1b`. Gemini's warnings name nodes this way.
 */
export function childPointer(parent: string, ...tokens: (string | number)[]): string {
  return [parent, ...tokens.map((token) => String(token).replace(/~/g, '~0').replace(/\//g, '~1'))].join('/');
}
