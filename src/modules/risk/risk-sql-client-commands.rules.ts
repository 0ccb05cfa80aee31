import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { runCodeWord, runStdin } from './risk-shell-command';
import { OptionSpec, parseOptions } from './risk-shell-options';
import type { ShellWord } from './risk-shell-word';

/**
 * A getopt-style SQL client: `sqlKeys` carry SQL, `fileKeys` carry a script file (opaque unless `-`);
 * with neither, the client runs whatever it reads on stdin.
 */
function sqlClient(spec: OptionSpec, sqlKeys: string[], fileKeys: string[] = []): ShellCommandHandler {
  return (args, env) => {
    const opts = parseOptions(args, spec);
    const sql = sqlKeys.flatMap((key) => opts.values.get(key) ?? []);
    const files = fileKeys.flatMap((key) => opts.values.get(key) ?? []);
    for (const word of sql) runCodeWord(word, 'sql', env);
    for (const file of files) runScriptFile(file, env);
    if (!sql.length && !files.length) runStdin('sql', env);
  };
}

function runScriptFile(file: ShellWord, env: ShellCommandEnv): void {
  if (file.value === '-') runStdin('sql', env);
  else env.scan.report('opaque', env.snippet);
}

/** sqlite3 / duckdb: single-dash long options, then `FILENAME [SQL ...]`. */
function sqliteLike(sqlOptions: string[], valueOptions: string[]): ShellCommandHandler {
  return (args, env) => {
    const operands: ShellWord[] = [];
    let sqlSeen = false;
    for (let i = 0; i < args.length; i++) {
      const name = args[i].value.replace(/^--?/, '');
      if (!args[i].value.startsWith('-') || args[i].value === '-') {
        operands.push(args[i]);
      } else if (sqlOptions.includes(name) && args[i + 1]) {
        runCodeWord(args[++i], 'sql', env);
        sqlSeen = true;
      } else if (name === 'init' && args[i + 1]) {
        runScriptFile(args[++i], env);
        sqlSeen = true;
      } else if (valueOptions.includes(name)) {
        i++;
      }
    }
    for (const sql of operands.slice(1)) runCodeWord(sql, 'sql', env);
    if (!sqlSeen && operands.length <= 1) runStdin('sql', env);
  };
}

function sqlcmd(args: ShellWord[], env: ShellCommandEnv): void {
  sqlClient({ withValue: 'SUPdQqiHtlAsWhrxceRLfKkmMNoaBv' }, ['Q', 'q'], ['i'])(args, env, 'sqlcmd');
}

function mysqladmin(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => /^drop$/i.test(w.value))) env.scan.report('drop', env.snippet);
}

function dropdb(args: ShellWord[], env: ShellCommandEnv): void {
  if (!args.some((w) => w.value === '--help' || w.value === '-?' || w.value === '--version'))
    env.scan.report('drop', env.snippet);
}

function redisCli(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.some((w) => /^flush(?:all|db)$/i.test(w.value))) env.scan.report('drop', env.snippet);
}

/** `FLUSHALL` / `FLUSHDB` as a Redis tool takes it (no shell command has these names). */
function redisFlush(_args: ShellWord[], env: ShellCommandEnv): void {
  env.scan.report('drop', env.snippet);
}

function mongo(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, {
    longWithValue: ['eval', 'host', 'port', 'username', 'password', 'authenticationDatabase', 'file'],
  });
  for (const code of opts.values.get('eval') ?? []) runCodeWord(code, 'mongo', env);
}

const PSQL: OptionSpec = {
  withValue: 'cdfhLopPTUvFR',
  longWithValue: [
    'command',
    'dbname',
    'file',
    'host',
    'log-file',
    'output',
    'port',
    'pset',
    'table-attr',
    'username',
    'set',
    'variable',
    'field-separator',
    'record-separator',
  ],
};
const MYSQL: OptionSpec = {
  withValue: 'eDhPuSOo',
  attachedValue: 'p',
  longWithValue: ['execute', 'database', 'host', 'port', 'user', 'socket', 'default-character-set', 'init-command'],
};

/** Database clients whose SQL (inline, stdin or heredoc) is read as SQL. */
export const SQL_CLIENT_COMMANDS: Record<string, ShellCommandHandler> = {
  psql: sqlClient(PSQL, ['c', 'command'], ['f', 'file']),
  mysql: sqlClient(MYSQL, ['e', 'execute', 'init-command']),
  mariadb: sqlClient(MYSQL, ['e', 'execute', 'init-command']),
  cockroach: sqlClient(
    { withValue: 'e', longWithValue: ['execute', 'url', 'database', 'user', 'host', 'certs-dir'] },
    ['e', 'execute'],
    ['file', 'f'],
  ),
  'clickhouse-client': sqlClient(
    { withValue: 'qhuP', longWithValue: ['query', 'host', 'user', 'port', 'password', 'database', 'queries-file'] },
    ['q', 'query'],
    ['queries-file'],
  ),
  sqlite3: sqliteLike(
    ['cmd'],
    ['separator', 'newline', 'nullvalue', 'vfs', 'maxsize', 'mmap', 'pagecache', 'lookaside', 'heap', 'escape'],
  ),
  duckdb: sqliteLike(['cmd', 'c', 's'], ['separator', 'newline', 'nullvalue']),
  sqlcmd,
  mysqladmin,
  dropdb,
  'redis-cli': redisCli,
  flushall: redisFlush,
  flushdb: redisFlush,
  cqlsh: sqlClient(
    {
      withValue: 'efukp',
      longWithValue: ['execute', 'file', 'username', 'password', 'keyspace', 'cqlversion', 'encoding'],
    },
    ['e', 'execute'],
    ['f', 'file'],
  ),
  mongo,
  mongosh: mongo,
};
