import RE2 from 're2';

/**
 * The regular-expression engine ajv uses for `pattern` and `patternProperties` (its `code.regExp` option):
 * RE2, which matches in time linear in the input, so a hostile pattern such as `^(a+)+$` cannot stall the
 * event loop (V8's backtracking engine took 18 s on 31 characters). RE2 has no lookarounds and no
 * backreferences: such a pattern fails to compile here, and the error names the pattern and says why, so a
 * registration (400) or a sync (that tool rejected) can report it.
 */
export function linearRegExp(pattern: string, flags: string): RE2 {
  try {
    return new RE2(pattern, flags);
  } catch (err) {
    throw new Error(
      `pattern ${JSON.stringify(pattern)} is not supported (${(err as Error).message}): patterns are matched in linear time with RE2, ` +
        'which has no lookahead, lookbehind or backreferences; rewrite it without them',
    );
  }
}
/** ajv names this in standalone code only; kept so the engine stays usable there. */
linearRegExp.code = 'require("re2")';
