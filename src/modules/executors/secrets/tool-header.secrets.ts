import type { SecretScope } from '@app/modules/tenant-secrets/tool-secret.scope';
import { SECRET_REF_PATTERN } from '@app/modules/tenant-secrets/tool-secret.refs';
import { REDACTED } from '@app/common/redaction';
import { escapedEchoSpans, withSpansReplaced } from './escaped-echoes';
import { ToolCallError, type ToolOutput } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';

/**
 * A header value with every `${secret:NAME}` filled from the owner's own scope (see SecretScope).
 * @throws ToolCallError `SECRET_MISSING` (not transient, nothing sent); its message never names a platform secret.
 */
export function fillHeaderSecrets(ownerLabel: string, header: string, template: string, secrets: SecretScope): string {
  return template.replace(SECRET_REF_PATTERN, (_match, name: string) => {
    const value = secrets.get(name);
    if (value === undefined) {
      throw new ToolCallError(
        `${ownerLabel}: header "${header}" ${secrets.missing(name)}.`,
        ToolErrorClass.SECRET_MISSING,
        { transient: false, reachedRemote: false },
      );
    }
    return value;
  });
}

/** Every header of `templates` with its secrets filled (names kept as written). */
export function fillHeadersSecrets(
  ownerLabel: string,
  templates: Record<string, string>,
  secrets: SecretScope,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(templates))
    out[name] = fillHeaderSecrets(ownerLabel, name, template, secrets);
  return out;
}

/** Secret values shorter than this are not hidden in answers: hiding "ab" everywhere would garble them. */
const MIN_HIDDEN_SECRET_CHARS = 4;

/**
 * The texts to hide from what a remote answers: every secret value the header templates reference (as sent, as a
 * JSON string holds it and URL-encoded), longest first. A remote that echoes its credentials (an error text, a
 * redirect's Location, a headers-echo endpoint) must not hand them to the model, the journal or the tool log.
 */
export function secretValuesToHide(
  templates: Record<string, string> | null | undefined,
  secrets: SecretScope,
): string[] {
  const values: string[] = [];
  for (const template of Object.values(templates ?? {})) {
    for (const [, name] of template.matchAll(SECRET_REF_PATTERN)) {
      const value = secrets.get(name);
      if (value !== undefined) values.push(value);
    }
  }
  return valuesToHide(values);
}

/**
 * The texts to hide for these credential values (each as sent, as a JSON string holds it and URL-encoded), longest
 * first; values shorter than `minChars` are left out (by default those too short to hide without blanking ordinary
 * text; the model client and the Nacos client's log hide their own key whatever its length).
 */
export function valuesToHide(values: readonly string[], minChars = MIN_HIDDEN_SECRET_CHARS): string[] {
  const hidden = new Set<string>();
  for (const value of values)
    if (value !== '' && value.length >= minChars) for (const form of credentialForms(value)) hidden.add(form);
  return [...hidden].sort((a, b) => b.length - a.length);
}

/** The forms a credential is echoed in: as sent, as a JSON string holds it, URL-encoded. */
function credentialForms(value: string): string[] {
  return [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)];
}

/**
 * `text` with every one of `values` replaced by `replacement` ({@link REDACTED} unless said), also where the remote
 * escaped some of its characters (see escaped-echoes.ts): a JSON encoder's `\/` (PHP), `\u002B` (.NET),
 * `\u0026` (Go), a percent-encoding in lower case (.NET's UrlEncode). The model client hides an echoed key with it.
 */
export function hideSecretValues(text: string, values: readonly string[], replacement = REDACTED): string {
  if (values.length === 0) return text;
  let out = text;
  for (const value of values) if (out.includes(value)) out = out.split(value).join(replacement);
  // Without a backslash, a percent sign or a plus no character can be escaped: the plain pass found every echo.
  if (!/[\\%+]/.test(out)) return out;
  const spans = escapedEchoSpans(out, values);
  return spans.length ? withSpansReplaced(out, spans, replacement) : out;
}

/**
 * A remote's output with `hidden` (see {@link secretValuesToHide}) replaced in its text and in its structured result
 * (which, changed, is read back from its hidden JSON; dropped in the unlikely case that no longer parses).
 */
export function outputWithoutSecrets(output: ToolOutput, hidden: readonly string[]): ToolOutput {
  if (hidden.length === 0) return output;
  const content = hideSecretValues(output.content, hidden);
  let structured = output.structured;
  if (structured !== undefined) {
    const json = JSON.stringify(structured);
    const hiddenJson = hideSecretValues(json, hidden);
    if (hiddenJson !== json) structured = parsedOrUndefined(hiddenJson);
  }
  if (content === output.content && structured === output.structured) return output;
  const { structured: _dropped, ...rest } = output;
  return structured === undefined ? { ...rest, content } : { ...rest, content, structured };
}

/** A remote's error with `hidden` replaced in its message (the same error when none occurs). */
export function errorWithoutSecrets(err: ToolCallError, hidden: readonly string[]): ToolCallError {
  if (hidden.length === 0) return err;
  const message = hideSecretValues(err.message, hidden);
  return message === err.message ? err : new ToolCallError(message, err.errorClass, err.options);
}

function parsedOrUndefined(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}
