import { collectRiskReadings, evaluateRiskArguments } from './risk-arguments.evaluator';

describe('evaluateRiskArguments', () => {
  it('inspects every string at any depth and tags each match with its path', () => {
    const verdict = evaluateRiskArguments({
      cwd: '/srv',
      steps: [{ run: 'npm test' }, { run: 'git push --force' }],
      db: { queries: ['SELECT 1', 'DELETE FROM users'] },
      retries: 3,
      dryRun: false,
    });
    expect(verdict).toEqual({
      risky: true,
      rules: [
        { rule: 'force-push', match: 'git push --force', path: 'steps[1].run' },
        { rule: 'unscoped-delete', match: 'DELETE FROM users', path: 'db.queries[1]' },
      ],
    });
  });

  it('keeps for reading only the short texts the pre-check cannot clear, with their paths', () => {
    const rows = Array.from({ length: 1_000 }, (_, i) => ({
      id: `row-${i}`,
      note: i === 700 ? 'rm -rf /srv' : 'fine',
    }));
    // What the worker thread is sent for a call of many small strings: the one that may be risky, not a thousand.
    expect(collectRiskReadings({ rows })).toEqual([{ text: 'rm -rf /srv', hint: 'auto', path: 'rows[700].note' }]);
    expect(evaluateRiskArguments({ rows }).rules).toEqual([
      { rule: 'recursive-delete', match: 'rm -rf /srv', path: 'rows[700].note' },
    ]);
  });

  it('quotes keys that are not identifiers in the path', () => {
    expect(evaluateRiskArguments({ 'shell command': 'rm -rf /' }).rules[0].path).toBe('["shell command"]');
  });

  it('reads an array of strings as an argv', () => {
    expect(evaluateRiskArguments({ argv: ['rm', '-rf', '/srv'] }).rules).toEqual([
      { rule: 'recursive-delete', match: 'rm -rf /srv', path: 'argv' },
    ]);
  });

  it('reads a program field with its args array as one command', () => {
    expect(evaluateRiskArguments({ command: 'git', args: ['push', '-f', 'origin', 'main'] }).rules).toEqual([
      { rule: 'force-push', match: 'git push -f origin main', path: 'args' },
    ]);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ cmd: 'rm', args: '-rf /' }, 'recursive-delete'],
    [{ command: 'git', arguments: 'push --force origin main' }, 'force-push'],
    [{ Program: 'chmod', Flags: '-R 777', Path: '/' }, 'permission-change'],
    [{ command: 'rm', options: ['-r', '-f'], target: '/srv' }, 'recursive-delete'],
    [{ bin: 'sh', args: '-c "rm -rf /"' }, 'recursive-delete'],
    [{ exe: 'truncate', argv: ['-s', '0'], file: '/etc/hosts' }, 'system-file-overwrite'],
    [{ program: 'git', subcommand: 'push', flags: ['--force'] }, 'force-push'],
    [{ CMD: 'rm', Cmd_Args: '-rf /srv' }, 'recursive-delete'],
  ])('reads a command split over several fields as one command line: %j', (args, rule) => {
    expect(evaluateRiskArguments(args).rules.map((r) => r.rule)).toContain(rule);
  });

  it.each<Record<string, unknown>>([
    { cmd: 'ls', args: '-rf /' },
    { command: 'echo', args: 'hello world' },
    { command: 'git', args: 'commit -m "rm -rf"' },
    { cmd: 'rm', args: 'notes.txt' },
  ])('stays safe when the joined command is harmless: %j', (args) => {
    expect(evaluateRiskArguments(args).risky).toBe(false);
  });

  it('keeps array elements apart when joining them (a list of prose is not a command)', () => {
    expect(evaluateRiskArguments({ tags: ['delete old logs', 'update readme'] }).risky).toBe(false);
  });

  it('ignores numbers, booleans, null and prose', () => {
    expect(
      evaluateRiskArguments({ n: 1, b: true, z: null, note: "It's the user's profile; update it later." }),
    ).toEqual({ risky: false, rules: [] });
  });

  it('evaluates a bare string argument', () => {
    expect(evaluateRiskArguments('rm -rf /').rules).toEqual([{ rule: 'recursive-delete', match: 'rm -rf /' }]);
  });

  describe('schema hints', () => {
    const text = 'DROP TABLE users';

    it('reads a field marked x-risk: sql as SQL', () => {
      const schema = { type: 'object', properties: { q: { type: 'string', 'x-risk': 'sql' } } };
      expect(evaluateRiskArguments({ q: 'truncate -s 0 x' }, schema).risky).toBe(false);
      expect(evaluateRiskArguments({ q: text }, schema).rules[0]).toEqual({ rule: 'drop', match: text, path: 'q' });
    });

    it('reads a field with format: sql as SQL even when it does not start like SQL', () => {
      const schema = { type: 'object', properties: { q: { type: 'string', format: 'sql' } } };
      expect(
        evaluateRiskArguments({ q: '  -- cleanup\n  /* x */ delete from t' }, schema).rules.map((r) => r.rule),
      ).toEqual(['unscoped-delete']);
    });

    it('reads a field marked x-risk: shell as shell', () => {
      const schema = { type: 'object', properties: { script: { type: 'string', 'x-risk': 'shell' } } };
      expect(
        evaluateRiskArguments({ script: 'select x in a b; do rm -rf "$x"; done' }, schema).rules.map((r) => r.rule),
      ).toEqual(['recursive-delete']);
    });

    it('applies a hint to everything below the marked property and follows local $refs', () => {
      const schema = {
        type: 'object',
        properties: { steps: { type: 'array', items: { $ref: '#/$defs/step' } } },
        $defs: {
          step: {
            type: 'object',
            properties: { body: { 'x-risk': 'sql', type: 'object', additionalProperties: { type: 'string' } } },
          },
        },
      };
      const verdict = evaluateRiskArguments(
        { steps: [{ body: { main: 'SELECT 1', cleanup: 'UPDATE t SET a = 1' } }] },
        schema,
      );
      expect(verdict.rules).toEqual([
        { rule: 'unscoped-update', match: 'UPDATE t SET a = 1', path: 'steps[0].body.cleanup' },
      ]);
    });

    it('still reads a field marked sql as shell where it is not SQL: a schema cannot hide a command', () => {
      const marked = { type: 'object', 'x-risk': 'sql', properties: { cmd: { type: 'string', format: 'sql' } } };
      const rules = (args: unknown) => evaluateRiskArguments(args, marked).rules.map((r) => r.rule);
      expect(rules({ cmd: 'rm -rf /' })).toContain('recursive-delete');
      expect(rules({ cmd: 'SELECT 1; DROP TABLE users' })).toEqual(['drop']);
      expect(rules({ command: 'rm', args: ['-rf', '/'] })).toContain('recursive-delete');
      expect(rules({ argv: ['git', 'push', '--force'] })).toContain('force-push');
      expect(rules({ cmd: 'SELECT * FROM t WHERE id = 1', names: ['a', 'b'] })).toEqual([]);
    });

    it('accepts a tool descriptor holding the schema under inputSchema', () => {
      const descriptor = {
        name: 'q',
        inputSchema: { type: 'object', properties: { sql: { type: 'string', format: 'sql' } } },
      };
      expect(evaluateRiskArguments({ sql: 'update t set a = 1' }, descriptor).risky).toBe(true);
    });
  });

  it('reports arguments nested deeper than 64 levels as opaque', () => {
    let deep: unknown = 'ls';
    for (let i = 0; i < 70; i++) deep = { next: deep };
    expect(evaluateRiskArguments(deep).rules.map((r) => r.rule)).toEqual(['opaque']);
  });

  it('stops parsing after 2000 command-like strings and reports the rest as opaque', () => {
    const many = Array.from({ length: 2_100 }, (_, i) => `git push origin b${i}`);
    const verdict = evaluateRiskArguments({ many });
    expect(verdict.rules).toEqual([{ rule: 'opaque', match: 'arguments hold more than 2000 command-like strings' }]);
  });

  it('does not count strings the pre-check skips', () => {
    const names = Array.from({ length: 5_000 }, (_, i) => `file-${i}.txt`);
    expect(evaluateRiskArguments({ names, cmd: 'git reset --hard' }).rules.map((r) => r.rule)).toEqual(['hard-reset']);
  });

  it('survives cyclic objects', () => {
    const cyclic: Record<string, unknown> = { cmd: 'git reset --hard' };
    cyclic.self = cyclic;
    expect(evaluateRiskArguments(cyclic).rules.map((r) => r.rule)).toEqual(['hard-reset']);
  });
});
