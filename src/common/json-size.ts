import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * class-validator: a value whose JSON is at most `maxBytes` bytes in UTF-8. For free-form objects stored in
 * one TEXT column (MySQL's TEXT holds 64 KB), so an oversized one is a clear 400, not a failed insert.
 */
export function MaxJsonBytes(maxBytes: number, options: ValidationOptions = {}): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxJsonBytes',
      constraints: [maxBytes],
      validator: {
        validate: (v) => v === undefined || v === null || Buffer.byteLength(JSON.stringify(v) ?? '') <= maxBytes,
      },
    },
    {
      message: `$property must be at most ${maxBytes.toLocaleString('en-US')} bytes as JSON (UTF-8); send fewer or shorter entries`,
      ...options,
    },
  );
}

/** Most bytes of JSON a tool's or MCP service's header templates may have: 16 KB, Node's default limit for all headers of a request. */
export const HEADERS_MAX_JSON_BYTES = 16 * 1024;
