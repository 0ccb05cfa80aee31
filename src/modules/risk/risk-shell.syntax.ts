/** Fields of mvdan.cc/sh/v3/syntax nodes that hold child nodes; every other field is a position or a flag. */
export const SHELL_CHILD_FIELDS: Readonly<Record<string, readonly string[]>> = {
  File: ['Stmts'],
  Assign: ['Index', 'Value', 'Array'],
  Redirect: ['Word', 'Hdoc'],
  CallExpr: ['Assigns', 'Args'],
  Subshell: ['Stmts'],
  Block: ['Stmts'],
  IfClause: ['Cond', 'Then', 'Else'],
  WhileClause: ['Cond', 'Do'],
  ForClause: ['Loop', 'Do'],
  WordIter: ['Items'],
  CStyleLoop: ['Init', 'Cond', 'Post'],
  BinaryCmd: ['X', 'Y'],
  FuncDecl: ['Body'],
  Word: ['Parts'],
  DblQuoted: ['Parts'],
  ParamExp: ['Index', 'Slice', 'Repl', 'Exp'],
  Slice: ['Offset', 'Length'],
  Replace: ['Orig', 'With'],
  Expansion: ['Word'],
  ArithmExp: ['X'],
  ArithmCmd: ['X'],
  BinaryArithm: ['X', 'Y'],
  UnaryArithm: ['X'],
  ParenArithm: ['X'],
  CaseClause: ['Word', 'Items'],
  CaseItem: ['Patterns', 'Stmts'],
  TestClause: ['X'],
  BinaryTest: ['X', 'Y'],
  UnaryTest: ['X'],
  ParenTest: ['X'],
  DeclClause: ['Args'],
  ArrayExpr: ['Elems'],
  ArrayElem: ['Index', 'Value'],
  TimeClause: ['Stmt'],
  CoprocClause: ['Stmt'],
  LetClause: ['Exprs'],
  BraceExp: ['Elems'],
  TestDecl: ['Description', 'Body'],
};

/** Operator codes of mvdan.cc/sh/v3/syntax (their order in tokens.go). */
export const ShellOp = {
  PIPE: 12,
  PIPE_ALL: 13,
  RDR_OUT: 54,
  APP_OUT: 55,
  RDR_IN: 56,
  RDR_IN_OUT: 57,
  CLB_OUT: 60,
  HEREDOC: 61,
  DASH_HEREDOC: 62,
  HERE_STRING: 63,
  RDR_ALL: 64,
  APP_ALL: 65,
  PROC_OUT: 67,
} as const;

/** Redirections that write a file: `>`, `>>`, `<>` (opened to write over in place), `>|`, `&>`, `&>>`. */
export const WRITE_OPS: ReadonlySet<unknown> = new Set([
  ShellOp.RDR_OUT,
  ShellOp.APP_OUT,
  ShellOp.RDR_IN_OUT,
  ShellOp.CLB_OUT,
  ShellOp.RDR_ALL,
  ShellOp.APP_ALL,
]);

/** Block devices: writing to them wipes a disk. */
export const BLOCK_DEVICE = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper\/|loop)/;
