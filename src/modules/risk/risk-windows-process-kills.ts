/**
 * Stopping every process of the machine from PowerShell: `Get-Process | Stop-Process`, `gps | % { $_.Kill() }`,
 * `gps | % Kill`, `(Get-Process).Kill()`, and every service (`Get-Service | Stop-Service`). Stopping processes or
 * services picked by name, id or a filter is not.
 */

/** .NET's list of every process. */
const GET_PROCESSES = String.raw`\[(?:system\.)?diagnostics\.process\]::getprocesses\(\s*\)`;

/** Get-Process's and Get-Service's parameters whose value picks none: what to do on errors, which machine. */
const VALUE_PICKING_NONE = String.raw`-(?:erroraction|ea|computername|cn)\s+[\w$:]+`;

/**
 * Every process: Get-Process (gps, ps) with no name, id or object to pick some (switches and VALUE_PICKING_NONE
 * only), or .NET's `GetProcesses()`.
 */
const EVERY_PROCESS = String.raw`(?:(?:get-process|gps|ps)(?:\s+(?:${VALUE_PICKING_NONE}|-(?!n|id\b|inp)[\w:]+))*|${GET_PROCESSES})`;

/** PowerShell's current pipeline item. */
const ITEM = String.raw`\$(?:_|psitem)\b`;

/** Stop-Process and its aliases (PowerShell's `kill` is one). */
const STOP = String.raw`(?:stop-process|spps|kill)`;

/**
 * A stage that stops each process piped into it: Stop-Process itself, a ForEach-Object block that stops the current
 * item or calls its Kill method (`% { $_.Kill() }`), or ForEach-Object calling Kill by name (`% Kill`). A block's
 * text is read up to 256 characters: no block that stops a process is longer, and hostile text stays linear.
 */
const STOPS_EACH = String.raw`(?:${STOP}(?:\s|$)|(?:foreach-object|foreach|%)(?:\s+-process)?\s*\{\s*(?:${STOP}\s[^}]{0,256}${ITEM}|${ITEM}\.kill\s*\()|(?:foreach-object|foreach|%)\s+(?:-membername\s+)?kill(?:\s|$))`;

const PIPED_TO_STOP = String.raw`${EVERY_PROCESS}\s*\|\s*${STOPS_EACH}`;

/** A pipeline (a command's stdin snippet) that starts by listing every process and stops each of them. */
const STOPS_EVERY_PROCESS = new RegExp(String.raw`^\s*${PIPED_TO_STOP}`, 'i');

/** Anywhere in text bash cannot parse: the pipeline, or every process's Kill method called at once (member enumeration). */
const KILLS_EVERY_PROCESS = new RegExp(
  String.raw`(?<![\w$-])(?:${PIPED_TO_STOP}|(?:\(\s*${EVERY_PROCESS}\s*\)|${GET_PROCESSES})\.kill\s*\()`,
  'i',
);

/** Get-Service (gsv) with nothing that picks some services, piped straight into Stop-Service (spsv). */
const STOPS_EVERY_SERVICE = new RegExp(
  String.raw`^\s*(?:get-service|gsv)(?:\s+(?:${VALUE_PICKING_NONE}|-(?!n|displayname|inp|exclude|include)[\w:]+))*\s*\|\s*(?:stop-service|spsv)(?:\s|$)`,
  'i',
);

/** True when `pipeline` (what feeds Stop-Service) lists every service of the machine and stops each one. */
export function stopsEveryService(pipeline: string): boolean {
  return STOPS_EVERY_SERVICE.test(pipeline);
}

/** True when `pipeline` (what feeds Stop-Process or ForEach-Object) lists every process and stops each one. */
export function stopsEveryProcess(pipeline: string): boolean {
  return STOPS_EVERY_PROCESS.test(pipeline);
}

/** The first place unparsed text kills every process, undefined when it does not. */
export function everyProcessKill(text: string): string | undefined {
  return KILLS_EVERY_PROCESS.exec(text)?.[0];
}
