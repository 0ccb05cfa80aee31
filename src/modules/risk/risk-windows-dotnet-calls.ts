/**
 * The .NET calls PowerShell scripts delete with, read as the cmdlet each amounts to. They only occur in text bash
 * cannot parse (a call's parentheses), so the fallback scanner reads them.
 */

/** One call: the Remove-Item command line it amounts to, and the call as written (the match snippet). */
export interface DotNetDelete {
  readonly argv: readonly string[];
  readonly snippet: string;
}

/**
 * `[IO.File]::Delete(PATH)`, `[System.IO.Directory]::Delete(PATH, $true)` (recursive), `$_.Delete()` (each item
 * piped in), `(Get-Item DIR).Delete($true)` (DirectoryInfo's recursive delete).
 */
const DELETE_CALL = /\[(?:system\.)?io\.(?:file|directory)\]::delete\s*\(|\$(?:_|psitem)\.delete\s*\(|\.delete\s*\(/gi;

/** Longest argument list read, and most calls read in one text (more is no script anyone writes: opaque). */
const MAX_ARGUMENTS_CHARS = 1_000;
export const MAX_DOTNET_DELETES = 64;

/** The top-level arguments of the call whose `(` ends at `open` (exclusive), and where they end. */
function callArguments(text: string, open: number): { args: string[]; end: number } {
  const args: string[] = [];
  let depth = 0;
  let start = open;
  let quote = '';
  const limit = Math.min(text.length, open + MAX_ARGUMENTS_CHARS);
  for (let i = open; i < limit; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '(') {
      depth++;
    } else if ((c === ',' || c === ')') && depth === 0) {
      args.push(text.slice(start, i).trim());
      start = i + 1;
      if (c === ')') return { args: args.filter(Boolean), end: i + 1 };
    } else if (c === ')') {
      depth--;
    }
  }
  return { args: [text.slice(start, limit).trim()].filter(Boolean), end: limit };
}

/** Every .NET delete call in `text` (at most MAX_DOTNET_DELETES + 1: more counts as opaque). */
export function dotNetDeletes(text: string): DotNetDelete[] {
  const calls: DotNetDelete[] = [];
  for (const match of text.matchAll(DELETE_CALL)) {
    if (calls.length > MAX_DOTNET_DELETES) break;
    const start = match.index ?? 0;
    const { args, end } = callArguments(text, start + match[0].length);
    const snippet = text.slice(start, end);
    const isStatic = match[0].startsWith('[');
    const recursive = /^\$true$/i.test((isStatic ? args[1] : args[0]) ?? '');
    const flag = recursive ? ['-Recurse'] : [];
    if (isStatic) calls.push({ argv: ['Remove-Item', ...flag, ...args.slice(0, 1)], snippet });
    else if (match[0].startsWith('$')) calls.push({ argv: ['Remove-Item', '$_'], snippet });
    else if (recursive) calls.push({ argv: ['Remove-Item', ...flag], snippet });
  }
  return calls;
}
