/**
 * Decides whether a WHERE clause (a node-sql-parser expression) really narrows the rows.
 * A clause without any column (`1=1`, `true`, `'a'='a'`, `NOT false`), a column compared with itself
 * (`id = id`), `LIKE '%'`, or an OR with such a branch (`id = 5 OR 1=1`) does not.
 */
export function isScopingCondition(expr: unknown): boolean {
  if (!isNode(expr)) return false;
  if (expr.type === 'binary_expr') {
    const op = String(expr.operator).toUpperCase();
    if (op === 'OR' || op === '||' || op === 'XOR')
      return isScopingCondition(expr.left) && isScopingCondition(expr.right);
    if (op === 'AND' || op === '&&') return isScopingCondition(expr.left) || isScopingCondition(expr.right);
    if (!mentionsRows(expr)) return false;
    if (['=', '==', '<=>', '>=', '<=', 'IS', 'LIKE', 'ILIKE'].includes(op) && sameExpression(expr.left, expr.right))
      return false;
    if ((op === 'LIKE' || op === 'ILIKE') && isNode(expr.right) && /^%+$/.test(String(expr.right.value))) return false;
    return true;
  }
  return mentionsRows(expr);
}

/** True when the expression reads a column or a subquery, i.e. can differ from row to row. */
function mentionsRows(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsRows);
  if (!isNode(node)) return false;
  if (node.type === 'column_ref') return !isQuotedLiteralColumn(node);
  if (node.type === 'select' || 'tableList' in node || 'ast' in node) return true;
  return Object.values(node).some((v) => typeof v === 'object' && v !== null && mentionsRows(v));
}

/** PostgreSQL parses `"a"` as a column; a bare name is still a column either way, so only strings count as constants. */
function isQuotedLiteralColumn(node: Record<string, unknown>): boolean {
  const column = node.column;
  return isNode(column) && isNode(column.expr) && column.expr.type === 'single_quote_string';
}

function sameExpression(a: unknown, b: unknown): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

function isNode(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
