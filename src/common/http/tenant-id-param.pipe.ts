import { Injectable, PipeTransform } from '@nestjs/common';
import { TENANT_ID_PATTERN } from '@app/modules/tool-registry/tool-registry.types';
import { validationFailed } from '../errors/validation';

/** Validates a `{tenantId}` path parameter. */
@Injectable()
export class TenantIdParamPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!TENANT_ID_PATTERN.test(value)) {
      throw validationFailed([{ field: 'tenantId', problems: ['must be 1-64 letters, digits, _ . or -'] }]);
    }
    return value;
  }
}
