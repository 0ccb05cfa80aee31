/** One SQL statement, without its comments. */
export interface SqlStatement {
  /** The statement with comments replaced by spaces; string literals kept (what the parser reads). */
  readonly text: string;
  /** The same with the contents of strings and quoted identifiers blanked (what the fallback patterns read). */
  readonly masked: string;
}

export interface SqlSplit {
  readonly statements: SqlStatement[];
  /** False when a quote or comment was never closed: masking may then hide code. */
  readonly closed: boolean;
}

/**
 * Splits SQL into statements on `;` outside strings and comments. MySQL `/*! ... *\/` comments are code
 * (MySQL runs them), so their content is kept. Backslash escapes are tried first (MySQL) and dropped
 * when they leave a string unclosed (PostgreSQL standard strings).
 */
export function splitSql(sql: string): SqlSplit {
  const withEscapes = lex(sql, true);
  return withEscapes.closed ? withEscapes : lex(sql, false);
}

function lex(sql: string, backslashEscapes: boolean): SqlSplit {
  const statements: SqlStatement[] = [];
  let text = '';
  let masked = '';
  let closed = true;
  let run = 0; // start of the plain code not yet copied
  const copyRun = (to: number) => {
    const code = sql.slice(run, to);
    text += code;
    masked += code;
  };
  const flush = () => {
    if (masked.trim()) statements.push({ text: text.trim(), masked: masked.trim() });
    text = '';
    masked = '';
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    let end = -1;
    if ((c === '-' && next === '-') || (c === '#' && next !== '>' && !/[\w)]/.test(sql[i - 1] ?? ' '))) {
      copyRun(i);
      end = skipTo(sql, i, '\n');
      text += ' ';
      masked += ' ';
    } else if (c === '/' && next === '*') {
      copyRun(i);
      const close = sql.indexOf('*/', i + 2);
      if (close < 0) closed = false;
      const stop = close < 0 ? sql.length : close;
      const code = sql[i + 2] === '!' ? sql.slice(i + 3, stop).replace(/^\d{5,6}/, '') : '';
      const replacement = code ? ` ${code} ` : ' ';
      text += replacement;
      masked += replacement;
      end = close < 0 ? sql.length : close + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      copyRun(i);
      const close = closeQuote(sql, i, c, backslashEscapes && c !== '`');
      if (close < 0) closed = false;
      end = close < 0 ? sql.length : close + 1;
      text += sql.slice(i, end);
      masked += c + c;
    } else if (c === '$' && !/\w/.test(sql[i - 1] ?? ' ')) {
      const tag = /^\$(?:[A-Za-z_]\w*)?\$/.exec(sql.slice(i, i + 64))?.[0];
      if (tag) {
        copyRun(i);
        const close = sql.indexOf(tag, i + tag.length);
        if (close < 0) closed = false;
        end = close < 0 ? sql.length : close + tag.length;
        text += sql.slice(i, end);
        masked += "''";
      }
    } else if (c === ';') {
      copyRun(i);
      flush();
      end = i + 1;
    }
    if (end < 0) {
      i++;
    } else {
      i = end;
      run = end;
    }
  }
  copyRun(sql.length);
  flush();
  return { statements, closed };
}

function skipTo(sql: string, from: number, stop: string): number {
  const end = sql.indexOf(stop, from);
  return end < 0 ? sql.length : end;
}

/** Index of the closing quote (doubled quotes and, optionally, backslashes escape), or -1. */
function closeQuote(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  for (let i = start + 1; i < sql.length; i++) {
    const c = sql[i];
    if (backslashEscapes && c === '\\') {
      i++;
    } else if (c === quote) {
      if (sql[i + 1] === quote) i++;
      else return i;
    }
  }
  return -1;
}
