import { REDACTED } from './redaction-keys';

/*
 * Secrets inside free text. Every pattern starts with a literal or a bounded run and its open-ended runs stop
 * at a delimiter, so each runs in linear time on any input (these see model and remote output).
 */

/** `-----BEGIN ... PRIVATE KEY-----` up to its END line, or to the end of a text that was cut. */
const PRIVATE_KEY_BLOCK =
  /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|$)/g;

/**
 * The userinfo of a URL: `postgres://user:pass@host`, `https://token@host`. It runs to the last `@` before the
 * authority ends, as the URL parser reads it: a password holding an `@` is masked whole.
 */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s/?#"'<>]+)@/gi;

/**
 * `key=value`, `key: value`, `"key": "value"` (also JSON-escaped) for sensitive words, in query strings,
 * connection strings (`Server=...;Password=...`), headers and config text. Short words need a boundary.
 */
const KEY_VALUE = new RegExp(
  String.raw`((?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|cookie|authorization|(?<![a-z0-9])(?:pass|pwd|auth|jwt|otp)(?![a-z]))` +
    String.raw`[\w.-]{0,40}?(?:\\?["'])?[ \t]{0,8}[:=][ \t]{0,8}(?:(?:bearer|basic|digest|token)[ \t]+)?)` +
    String.raw`(\\?"(?:[^"\\\r\n]|\\[^"\r\n])*(?:\\?")?|'[^'\r\n]*'?|[^\s"'&;,<>(){}\[\]]+)`,
  'gi',
);

/**
 * A command line's credential options with their value after a space (`=` is KEY_VALUE's): `--password hunter2`,
 * `--db-password x`, `--api-key x`, `--token x`, `--client-secret x`; not `--password-stdin` nor `--token-file x`.
 */
const SECRET_OPTION = new RegExp(
  String.raw`((?<![\w-])--(?:[a-z0-9]{1,20}[-_]){0,4}` +
    String.raw`(?:password|passwd|passphrase|pass|pwd|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|credentials?)` +
    String.raw`[ \t]+)(?!-)("[^"\r\n]*"?|'[^'\r\n]*'?|[^\s"']+)`,
  'gi',
);

/** curl's and wget's `-u user:password`, `--user user:password`, `--proxy-user user:password`: the password. */
const USER_OPTION = /((?<![\w-])(?:-u|--user|--proxy-user)(?:[ \t]+|=)["']?[^\s:"']{1,256}:)([^\s"']+)/g;

/**
 * One command of a MySQL or MariaDB client, up to the end of its statement (`;`, `&`, `|`, a line end), whose password
 * may be glued to its short option: `mysql -uroot -pS3cret` (a lone `-p` asks for it; `-P` is the port).
 */
const MYSQL_CLIENT_COMMAND =
  /(?<![\w.-])(?:mysql(?:dump|admin|import|show|check|pump)?|mariadb(?:-dump|-admin|-import|-show|-check)?)(?![\w-])[^\n;&|]*/g;
const GLUED_PASSWORD_OPTION = /((?<=[ \t])-p)("[^"\r\n]*"?|'[^'\r\n]*'?|[^\s"']+)/g;

/** `sshpass -p secret`: the password sshpass types for ssh. */
const SSHPASS_PASSWORD = /((?<![\w-])sshpass[ \t]+-p[ \t]*)("[^"\r\n]*"?|'[^'\r\n]*'?|[^\s"']+)/g;

const BEARER = /\b(bearer[ \t]+)[A-Za-z0-9._~+/=-]{6,}/gi;

/** JSON Web Tokens: three base64url parts, the first a JSON object (`eyJ`). */
const JWT = /\beyJ[\w-]{6,}\.[\w-]{6,}\.[\w-]*/g;

/**
 * Tokens whose shape names them: this gateway's own API keys (`gwk_` and 32 bytes in base64url), GitHub, GitLab, Slack,
 * AWS access key ids, OpenAI/Stripe-style keys.
 */
const KNOWN_TOKEN =
  /\b(?:gwk_[\w-]{43}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{20,}|xox[abposr]-[\w-]{10,}|AKIA[0-9A-Z]{16}|sk-[\w-]{20,}|sk_(?:live|test)_\w{16,})/g;

function maskValue(value: string): string {
  if (value.startsWith('\\"')) return `\\"${REDACTED}\\"`;
  if (value.startsWith('"')) return `"${REDACTED}"`;
  if (value.startsWith("'")) return `'${REDACTED}'`;
  return REDACTED;
}

function maskUserinfo(_m: string, scheme: string, userinfo: string): string {
  const colon = userinfo.indexOf(':');
  return `${scheme}${colon > 0 ? `${userinfo.slice(0, colon)}:${REDACTED}` : REDACTED}@`;
}

/**
 * Free text with secrets masked: passwords and tokens written as `key=value` or `key: value`, or as a command line's
 * options (`--password x`, `-u user:x`, a MySQL client's `-px`, `sshpass -p x`), connection strings and URLs with credentials, bearer tokens, JWTs, private
 * key blocks and well-known token shapes.
 */
export function redactText(text: string): string {
  let out = text;
  if (out.includes('PRIVATE KEY')) out = out.replace(PRIVATE_KEY_BLOCK, REDACTED);
  if (out.includes('://')) out = out.replace(URL_USERINFO, maskUserinfo);
  out = out.replace(KEY_VALUE, (_m, prefix: string, value: string) => prefix + maskValue(value));
  if (out.includes('-')) {
    out = out.replace(SECRET_OPTION, (_m, prefix: string, value: string) => prefix + maskValue(value));
    out = out.replace(USER_OPTION, `$1${REDACTED}`);
    if (/mysql|mariadb/i.test(out))
      out = out.replace(MYSQL_CLIENT_COMMAND, (command) =>
        command.replace(GLUED_PASSWORD_OPTION, (_m, option: string, value: string) => option + maskValue(value)),
      );
    if (out.includes('sshpass'))
      out = out.replace(SSHPASS_PASSWORD, (_m, prefix: string, value: string) => prefix + maskValue(value));
  }
  out = out.replace(BEARER, `$1${REDACTED}`);
  if (out.includes('eyJ')) out = out.replace(JWT, REDACTED);
  return out.replace(KNOWN_TOKEN, REDACTED);
}
