import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH, tooDeepProblem } from '../json-depth';
import { validationFailed } from '../errors/validation';

/** Largest JSON request body the API reads (Fastify's bodyLimit). */
export const JSON_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * Refuses a JSON body nested deeper than {@link MAX_JSON_DEPTH} (400 VALIDATION_FAILED), checked on the raw
 * bytes before parsing, by the JSON body parser (see `json-body.parser.ts`).
 */
export function assertJsonBodyDepth(raw: Uint8Array): void {
  if (jsonTextNestsDeeperThan(raw, MAX_JSON_DEPTH))
    throw validationFailed([{ field: '(body)', problems: [tooDeepProblem(MAX_JSON_DEPTH)] }]);
}
