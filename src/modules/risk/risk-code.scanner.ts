import type { RiskRule } from './risk.types';
import type { RiskLanguage, RiskScan } from './risk-scan';
import { shellJoin } from './risk-shell-word';

/** Library calls that delete a tree, in the one-liner languages (python, node, perl, ruby, php, R, julia). */
const TREE_DELETE =
  /\bshutil\s*\.\s*rmtree\b|\bos\s*\.\s*removedirs\b|\brmtree\b|\bremove_tree\b|\b(?:rm|rmdir|remove)(?:Sync)?\s*\([^)]{0,300}recursive\s*[:=]\s*(?:true|TRUE|T\b|1|!0)|\bunlink\s*\([^)]{0,300}recursive\s*=\s*(?:TRUE|T)\b|\brimraf\b|\b(?:removeSync|emptyDirSync|emptyDir)\s*\(|\bfse?\s*\.\s*remove\s*\(|\bFileUtils\s*\.\s*(?:rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?|rmtree)\b|\brm_rf\b/;

/** Decoding right before running: exec(b64decode(...)), eval(atob(...)), eval(pack(...)). */
const RUNS_CODE = /\b(?:exec|eval|compile|system|Function|instance_eval|popen)\b/;
const DECODES =
  /\b(?:b64decode|decodebytes|a85decode|base64|decode_base64|unpack1?|atob|fromCharCode|bytes\.fromhex|codecs\.decode|zlib\.decompress|Buffer\.from)\b/;

/**
 * Running code that is not one literal here: exec(requests.get(u).text), eval(x), exec('import os; os.' + name),
 * new Function(src), a string that interpolates (perl and php `"$x"`, ruby `"#{x}"`, js `${x}`), and a shell command
 * built at run time: os.system(cmd), subprocess.run(" ".join(parts)), execSync(cmd), system($cmd).
 */
const RUN_DYNAMIC =
  /\b(?:exec|eval|Function)\s*\((?!\s*(?:'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n$@#]|\\.|\$(?![\w{])|@(?!\w)|#(?!\{))*"|`(?:[^`\\$]|\\.|\$(?!\{))*`)\s*[,)]|\s*\))|\b(?:os\s*\.\s*(?:system|popen|exec\w*|spawn\w*)|subprocess\s*\.\s*\w+|child_process\s*\.\s*exec|execSync|spawnSync|execFileSync|shell_exec|passthru|proc_open|system|popen)\s*\((?!\s*(?:'[^'\n]*'|"[^"\n]*"|`[^`]*`)\s*[,)]|\s*[[)])/;

/** perl and ruby eval without parentheses of what is not a literal: `eval $ARGV[0]`, `eval ARGV[0]`, `eval "$x"` (`eval { }` is a block). */
const EVAL_BARE = /\beval\s+(?=[$@A-Za-z_]|"(?:[^"\\\n]|\\.)*?(?:\$[\w{]|@\w|#\{))/;

/** Modules whose functions delete, run commands or load other modules, in python, node and ruby. */
const DANGEROUS_MODULE = {
  python: String.raw`(?:os|shutil|subprocess|pty|posix|nt|sys|builtins|__builtins__|importlib|__import__\s*\([^()]*\))`,
  js: String.raw`(?:require\s*\(\s*['"](?:child_process|fs|fs/promises|fs-extra|shelljs)['"]\s*\)|\b(?:child_process|fs|fse|shell)\b)`,
  ruby: String.raw`\b(?:FileUtils|Kernel|File|Dir|IO|Open3|Process|Pathname)`,
};

/**
 * A function of such a module picked by a name built at run time (`getattr(shutil, sys.argv[1])`, `os.__dict__[x]`,
 * `require('child_process')[x]`, `FileUtils.send(ARGV[0])`), or a module named at run time (`__import__(x)`):
 * what runs cannot be read. Lookups by a literal name were made plain calls before this is tested.
 */
const DYNAMIC_LOOKUP = new RegExp(
  [
    String.raw`\bgetattr\s*\(\s*${DANGEROUS_MODULE.python}\s*,\s*(?!['"]\w*['"]\s*[,)])`,
    String.raw`\b(?:__import__|import_module)\s*\(\s*(?!['"][\w.]*['"]\s*[,)])`,
    String.raw`(?:\b${DANGEROUS_MODULE.python}\s*\.\s*__dict__|\bvars\s*\(\s*${DANGEROUS_MODULE.python}\s*\))\s*\[`,
    String.raw`${DANGEROUS_MODULE.js}\s*\[\s*(?!['"][\w$]*['"]\s*\])`,
    String.raw`${DANGEROUS_MODULE.ruby}\s*\.\s*(?:send|public_send|__send__|method)\s*\(\s*(?!(?::\w+|'\w*'|"\w*")\s*[,)])`,
  ].join('|'),
);

/** Calls that hand a string to a shell or a database. */
const RUNS_STRINGS =
  /\bdo\s+shell\s+script\b|\|\s*"(?:\/bin\/)?(?:ba|z|da)?sh"|\b(?:system|popen\w*|exec\w*|spawn\w*|subprocess|check_call|check_output|Popen|execute\w*|getoutput|getstatusoutput|shell_exec|passthru|proc_open|capture[23]e?|Open3)\b|\b(?:call|run|query|raw)\s*[("'`]|`[^`]+`|\bqx\s*[{(/]|%x[{(]/;

/** `'rmt' + 'ree'`, perl's `"sys" . "tem"`, python's `'rm' 'tree'`: string literals glued together. */
const GLUED = /(?:'[^'\n]*'|"[^"\n]*")(?:\s*(?:[+.]\s*)?(?:'[^'\n]*'|"[^"\n]*"))+/g;
/** `getattr(shutil, 'rmtree')`, `require('fs')['rmSync']`: a function looked up by a literal name. */
const NAMED_LOOKUP =
  /\bgetattr\s*\(\s*([\w.]+(?:\s*\([^()]*\))?)\s*,\s*['"](\w+)['"]\s*\)|(?<=[\w)\]])\[\s*['"]([A-Za-z_$][\w$]*)['"]\s*\]/g;

/** The code with glued literals written as one and lookups by a literal name as plain calls, so the rules read what runs. */
function plainCode(code: string): string {
  return code
    .replace(GLUED, (glued) => {
      const text = listItems(glued).join('');
      const quote = !text.includes("'") ? "'" : !text.includes('"') ? '"' : undefined;
      return quote ? `${quote}${text}${quote}` : glued;
    })
    .replace(NAMED_LOOKUP, (_m, owner: string | undefined, name: string | undefined, key: string | undefined) =>
      owner ? `${owner}.${name}` : `.${key}`,
    );
}

const STRING_LITERAL = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;
const STRING_LIST = /\[\s*((?:(?:'[^'\n]*'|"[^"\n]*")\s*,\s*)+(?:'[^'\n]*'|"[^"\n]*"))\s*,?\s*\]/g;
const PROGRAM_AND_ARGS = /\(\s*(?:'([^'\n]+)'|"([^"\n]+)")\s*,\s*\[([^\]]*)\]/g;
/** `"r" + "m -rf /"`: literals glued together (also `.` in perl/php). */
const CONCATENATED = /(?:'[^'\n]*'|"[^"\n]*")(?:\s*[+.]\s*(?:'[^'\n]*'|"[^"\n]*"))+/g;
/** `system("rm", "-rf", "/")`, or in perl and ruby without parentheses `exec "rm", "-rf", "/"`: several string arguments. */
const STRING_ARGS =
  /(?:\(|\b(?:system|exec|spawn)[ \t]+)\s*((?:'[^'\n]*'|"[^"\n]*")(?:\s*,\s*(?:'[^'\n]*'|"[^"\n]*"))+)\s*[,);]?/g;
/** perl `qx(...)`, `qx{...}`, `qx/.../` and ruby `%x(...)`: a command line run in a shell, written unquoted. */
const QUOTED_COMMAND = /\bqx\s*(?:\(([^)]*)\)|\{([^}]*)\}|\/([^/]*)\/)|%x(?:\(([^)]*)\)|\{([^}]*)\})/g;

/** A process that forks (or spawns) in an endless loop: `fork while fork`, `while True: os.fork()`, `loop { fork }`. */
const FORK_LOOP =
  /\bfork\s+while\s+fork\b|(?:\bwhile\s*\(?\s*(?:true|True|1)\s*\)?\s*[:{]?|\bloop\s*(?:do\b|\{)|\bfor\s*\(\s*;\s*;\s*\))[\s\S]{0,140}?\b(?:fork|spawn\w*|Popen)\b/;

/** A quoted system path (see risk-system-paths.ts; /usr/local is for local installs). */
const SYSTEM_PATH_LITERAL =
  '[\'"`](?:/etc|/boot|/s?bin|/lib\\w*|/usr(?!/local/)|/proc|/sys|/var/log)(?:/[^\'"`]*)?[\'"`]';
/** Library calls that write, truncate, move or delete a system file: `open('/etc/passwd', 'w')`, `fs.writeFileSync('/etc/hosts', x)`. */
const SYSTEM_FILE_WRITE = new RegExp(
  [
    `\\bopen\\s*\\(\\s*${SYSTEM_PATH_LITERAL}\\s*,\\s*['"][^'"]*[wax+]`,
    `\\b(?:writeFile|appendFile|truncate|unlink|rm|rename|createWriteStream)(?:Sync)?\\s*\\(\\s*${SYSTEM_PATH_LITERAL}`,
    `\\b(?:os\\s*\\.\\s*(?:remove|unlink|rename|replace)|shutil\\s*\\.\\s*move|file_put_contents|File\\s*\\.\\s*(?:write|delete|unlink))\\s*\\(\\s*${SYSTEM_PATH_LITERAL}`,
    `\\bPath\\s*\\(\\s*${SYSTEM_PATH_LITERAL}\\s*\\)\\s*\\.\\s*(?:write_\\w+|unlink|rename|replace)\\b`,
  ].join('|'),
);

/** MongoDB shell one-liners (`mongosh --eval`). */
const MONGO: [RiskRule, RegExp][] = [
  ['drop', /\.\s*drop(?:Database)?\s*\(\s*\)|\bdropDatabase\s*\(/],
  ['unscoped-delete', /\.\s*(?:deleteMany|remove)\s*\(\s*\{\s*\}\s*[,)]/],
  ['unscoped-update', /\.\s*(?:updateMany|update)\s*\(\s*\{\s*\}\s*,/],
];

/**
 * Reads inline interpreter code (`python -c`, `node -e`, `perl -e` ...): tree deletes by library call,
 * decode-then-run, and the strings it passes to a shell or database, which are read as commands in turn.
 */
export function scanInterpreterCode(text: string, language: RiskLanguage, scan: RiskScan): void {
  if (language === 'mongo') {
    for (const [rule, pattern] of MONGO) if (pattern.test(text)) scan.report(rule, text);
    return;
  }
  const code = plainCode(text);
  if (TREE_DELETE.test(code)) scan.report('recursive-delete', text);
  if (FORK_LOOP.test(code)) scan.report('fork-bomb', text);
  if (SYSTEM_FILE_WRITE.test(code)) scan.report('system-file-overwrite', text);
  if (RUNS_CODE.test(code) && DECODES.test(code)) scan.report('obfuscated', text);
  else if (RUN_DYNAMIC.test(code) || DYNAMIC_LOOKUP.test(code)) scan.report('opaque', text);
  else if ((language === 'perl' || language === 'ruby') && EVAL_BARE.test(code)) scan.report('opaque', text);
  if (!RUNS_STRINGS.test(code)) return;
  for (const literal of stringsIn(code)) scan.nested(literal, 'auto');
}

function stringsIn(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(PROGRAM_AND_ARGS)) out.push(shellJoin([m[1] ?? m[2], ...listItems(m[3])]));
  for (const m of code.matchAll(STRING_LIST)) out.push(shellJoin(listItems(m[1])));
  for (const m of code.matchAll(STRING_ARGS)) out.push(shellJoin(listItems(m[1])));
  for (const m of code.matchAll(QUOTED_COMMAND)) out.push(m.slice(1).find((g) => g !== undefined) ?? '');
  for (const m of code.matchAll(CONCATENATED)) out.push(listItems(m[0]).join(''));
  for (const m of code.matchAll(STRING_LITERAL)) {
    const value = unescape(m[1] ?? m[2] ?? m[3] ?? '');
    if (value.trim().length > 1) out.push(value);
  }
  return out;
}

function listItems(list: string): string[] {
  return [...list.matchAll(/'([^'\n]*)'|"([^"\n]*)"/g)].map((m) => m[1] ?? m[2]);
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}
