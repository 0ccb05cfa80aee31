import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { pathOfProtoKey } from '../own-member';
import { DomainError } from './domain-error';
import { CommonErrorCode } from './common.errors';

export interface FieldProblem {
  field: string;
  problems: string[];
}

/** A body field no request of this route takes: the same words from class-validator's whitelist and ajv's schemas. */
export const UNKNOWN_FIELD_PROBLEM =
  'property should not exist: this request does not take it (misspelled, or a field it cannot change); remove it (the API docs at /docs list the fields it takes)';

/** Flattens nested class-validator errors into `field.path: problems`. */
function flattenValidationErrors(errors: ValidationError[], prefix = ''): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const err of errors) {
    const field = prefix ? `${prefix}.${err.property}` : err.property;
    if (err.constraints) {
      const { whitelistValidation, ...others } = err.constraints;
      const problems = Object.values(others);
      out.push({ field, problems: whitelistValidation ? [UNKNOWN_FIELD_PROBLEM, ...problems] : problems });
    }
    if (err.children?.length) out.push(...flattenValidationErrors(err.children, field));
  }
  return out;
}

export function validationFailed(fields: FieldProblem[]): DomainError {
  const summary = fields.map((f) => `${f.field}: ${f.problems.join('; ')}`).join(' | ');
  return new DomainError(
    CommonErrorCode.VALIDATION_FAILED,
    `Invalid request: ${summary}. Fix these fields and send it again.`,
    { fields },
  );
}

/**
 * Nest's ValidationPipe, refusing first a body that holds a key named `__proto__`: class-transformer copies a body
 * into its DTO by assignment, which turns such a key into the copy's prototype, so the member vanished without a word
 * (a tool's parameters stored without the property the admin sent). Bodies read by a schema of their own (`act`,
 * `execute`) do not pass through here and keep such a member as data.
 */
class GatewayValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && this.toValidate(metadata)) {
      const at = pathOfProtoKey(value, 'body');
      if (at !== null) {
        throw validationFailed([
          {
            field: at,
            problems: ['holds a key named "__proto__", which the gateway cannot store as sent; rename that key'],
          },
        ]);
      }
    }
    return super.transform(value, metadata);
  }
}

/** The global pipe: unknown fields rejected, types converted, every problem named. */
export function createValidationPipe(): ValidationPipe {
  return new GatewayValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationFailed(flattenValidationErrors(errors)),
  });
}
