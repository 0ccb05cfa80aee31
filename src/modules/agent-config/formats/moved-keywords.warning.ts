/**
 * The warning for the keywords (`minLength`, `default`, a `pattern` with a lookaround...) a format moved into the
 * description of the schema node at `pointer` because `provider` does not take them there: the model reads them as
 * text, and the provider no longer enforces them. Every format names such a node this way, once with all its keywords.
 */
export function movedKeywordsWarning(pointer: string, keywords: readonly string[], provider: string): string {
  const moved = [...new Set(keywords)];
  const them = moved.length === 1 ? 'it' : 'them';
  return (
    `${pointer}: ${moved.join(', ')} moved into the description, as ${provider} does not take ${them} there: the ` +
    `model reads ${them} as text and ${provider} no longer enforces ${them} (the gateway still checks each call ` +
    "against the tool's own schema)"
  );
}
