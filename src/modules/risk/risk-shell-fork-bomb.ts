import { GoNode, goString, nodeField, nodeKind, nodeList } from './risk-shell.parser';
import { SHELL_CHILD_FIELDS, ShellOp } from './risk-shell.syntax';

/**
 * Processes that spawn themselves without end: a function that runs itself in the background or in a
 * pipeline (`:(){ :|:& };:`), or a loop that never ends and starts a background process each turn
 * without waiting (`while true; do cmd & done`). Plain recursion and loops that wait or sleep are left alone.
 */
export function isForkBomb(cmd: GoNode): boolean {
  const kind = nodeKind(cmd);
  if (kind === 'FuncDecl') {
    const name = nodeField(cmd, 'Name');
    return name !== undefined && spawnsCall(nodeField(cmd, 'Body'), goString(name.Value), false);
  }
  if (kind === 'WhileClause') return endlessCondition(cmd) && spawnsUnwaited(nodeList(cmd.Do));
  if (kind === 'ForClause') {
    const loop = nodeField(cmd, 'Loop');
    return (
      nodeKind(loop) === 'CStyleLoop' &&
      loop !== undefined &&
      nodeKind(loop.Cond) === undefined &&
      spawnsUnwaited(nodeList(cmd.Do))
    );
  }
  return false;
}

/** `while true`, `while :`, `while [ 1 ]`, `while test x`, `until false`. */
function endlessCondition(loop: GoNode): boolean {
  const cond = nodeList(loop.Cond);
  if (cond.length !== 1) return false;
  const words = callWords(cond[0]);
  if (loop.Until) return words?.join(' ') === 'false';
  const test = words?.[0] === '[' ? words.slice(1, -1) : words?.[0] === 'test' ? words.slice(1) : undefined;
  return words?.length === 1 ? words[0] === 'true' || words[0] === ':' : test?.length === 1 && test[0] !== '';
}

/** The literal words of a statement that is a simple command of literal words. */
function callWords(st: GoNode): string[] | undefined {
  const call = nodeField(st, 'Cmd');
  if (nodeKind(call) !== 'CallExpr' || !call) return undefined;
  const words: string[] = [];
  for (const word of nodeList(call.Args)) {
    const parts = nodeList(word.Parts);
    if (parts.length !== 1 || nodeKind(parts[0]) !== 'Lit') return undefined;
    words.push(goString(parts[0].Value));
  }
  return words;
}

/** The literal command word of a statement that is a simple command. */
function callName(st: GoNode): string | undefined {
  const call = nodeField(st, 'Cmd');
  if (nodeKind(call) !== 'CallExpr' || !call) return undefined;
  const parts = nodeList(nodeList(call.Args)[0]?.Parts);
  return parts.length === 1 && nodeKind(parts[0]) === 'Lit' ? goString(parts[0].Value) : undefined;
}

/** True when `name` is called in the background or inside a pipeline anywhere below `node`. */
function spawnsCall(node: GoNode | undefined, name: string, spawning: boolean): boolean {
  const kind = nodeKind(node);
  if (!kind || !node) return false;
  if (kind === 'Stmt') {
    const spawns = spawning || Boolean(node.Background) || Boolean(node.Coprocess);
    if (spawns && callName(node) === name) return true;
    const cmd = nodeField(node, 'Cmd');
    const piped =
      nodeKind(cmd) === 'BinaryCmd' && cmd !== undefined && (cmd.Op === ShellOp.PIPE || cmd.Op === ShellOp.PIPE_ALL);
    return spawnsCall(cmd, name, spawns || piped);
  }
  const fields = kind === 'CmdSubst' || kind === 'ProcSubst' ? ['Stmts'] : (SHELL_CHILD_FIELDS[kind] ?? []);
  for (const field of fields) {
    const child = node[field];
    const children =
      child && typeof child === 'object' && '$array' in child ? nodeList(child) : [nodeField(node, field)];
    if (children.some((c) => spawnsCall(c, name, spawning))) return true;
  }
  return false;
}

/** A loop body that puts something in the background (at any depth: `(cmd &)`) and never waits or sleeps. */
function spawnsUnwaited(body: GoNode[]): boolean {
  return body.some((st) => backgrounds(st)) && !body.some((st) => ['wait', 'sleep'].includes(callName(st) ?? ''));
}

function backgrounds(node: GoNode | undefined): boolean {
  const kind = nodeKind(node);
  if (!kind || !node || kind === 'FuncDecl') return false;
  if (kind === 'Stmt') return Boolean(node.Background) || backgrounds(nodeField(node, 'Cmd'));
  return (SHELL_CHILD_FIELDS[kind] ?? []).some((field) => {
    const child = node[field];
    return child && typeof child === 'object' && '$array' in child
      ? nodeList(child).some(backgrounds)
      : backgrounds(nodeField(node, field));
  });
}
