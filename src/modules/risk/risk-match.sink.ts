import type { RiskMatch, RiskRule, RiskVerdict } from './risk.types';

const MAX_SNIPPET = 200;
/** Enough to review; a script with thousands of hits should not produce a verdict of thousands of lines. */
const MAX_MATCHES = 50;

/** Past this many characters a snippet is cut before its whitespace is collapsed: whole megabytes are not copied. */
const MAX_SNIPPET_SOURCE = 64 * MAX_SNIPPET;

/** Shortens an offending snippet for display: whitespace runs collapsed, about 200 characters kept. */
export function riskSnippet(text: string): string {
  let flat = text.slice(0, MAX_SNIPPET_SOURCE).replace(/\s+/g, ' ').trim();
  let end = flat.length;
  while (end > 0 && (flat[end - 1] === ';' || flat[end - 1] === '&' || flat[end - 1] === ' ')) end--;
  flat = flat.slice(0, end);
  return flat.length <= MAX_SNIPPET ? flat : `${flat.slice(0, MAX_SNIPPET - 1)}…`;
}

/** Collects the matches of one evaluation, without duplicates, tagged with the argument path being read. */
export class RiskMatchSink {
  private readonly matches: RiskMatch[] = [];
  private readonly seen = new Set<string>();
  private path: string | undefined;

  /** The argument path that later matches are tagged with. */
  at(path: string | undefined): void {
    this.path = path;
  }

  add(rule: RiskRule, snippet: string): void {
    if (this.matches.length >= MAX_MATCHES) return;
    const match = riskSnippet(snippet);
    const key = `${rule}\u0000${match}\u0000${this.path ?? ''}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    // The same hit seen from an outer and an inner level (`sh <<< $(curl x)`, then `$(curl x)`) is reported once.
    const overlaps = this.matches.some(
      (m) => m.rule === rule && m.path === this.path && (m.match.includes(match) || match.includes(m.match)),
    );
    if (overlaps) return;
    this.matches.push(this.path === undefined ? { rule, match } : { rule, match, path: this.path });
  }

  verdict(): RiskVerdict {
    return { risky: this.matches.length > 0, rules: [...this.matches] };
  }
}
