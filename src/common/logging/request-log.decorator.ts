import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { requestLogFields, type LoggedRequest } from './log-context';

function logFieldsOfRequest(_data: unknown, ctx: ExecutionContext) {
  return requestLogFields(ctx.switchToHttp().getRequest<LoggedRequest>());
}

/**
 * The request's log fields (`RequestLogFields`): its id and what was bound to it so far. Hand them to the work the
 * handler starts (`ToolCallContext.log`), whose lines then say which request, tenant and session they belong to.
 */
export const RequestLog = createParamDecorator(logFieldsOfRequest);
