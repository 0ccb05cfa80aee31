import { ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError } from './domain-error';
import { CommonErrorCode } from './common.errors';

export interface FieldProblem {
  field: string;
  problems: string[];
}

/** Flattens nested class-validator errors into `field.path: problems`. */
function flattenValidationErrors(errors: ValidationError[], prefix = ''): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const err of errors) {
    const field = prefix ? `${prefix}.${err.property}` : err.property;
    if (err.constraints) out.push({ field, problems: Object.values(err.constraints) });
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

/** The global pipe: unknown fields rejected, types converted, every problem named. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationFailed(flattenValidationErrors(errors)),
  });
}
