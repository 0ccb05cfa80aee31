import type { SecretScope } from '@app/modules/tenant-secrets/tool-secret.scope';
import { SECRET_REF_PATTERN } from '@app/modules/tenant-secrets/tool-secret.refs';
import { ToolCallError } from '../tool-executor';
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
