import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  HttpException,
  HttpStatus,
  MethodNotAllowedException,
  NotFoundException,
  PayloadTooLargeException,
  UnauthorizedException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { DomainError } from './domain-error';
import { CommonErrorCode } from './common.errors';
import { errorResponse } from './domain-error.filter';

const logger = { error: jest.fn() };

describe('errorResponse', () => {
  beforeEach(() => logger.error.mockClear());

  describe('HTTP-level 4xx refusals', () => {
    it.each([
      [new UnauthorizedException(), 401, CommonErrorCode.UNAUTHENTICATED],
      [new ForbiddenException(), 403, CommonErrorCode.FORBIDDEN],
      [new NotFoundException('Cannot GET /nope'), 404, CommonErrorCode.ROUTE_NOT_FOUND],
      [new MethodNotAllowedException(), 405, CommonErrorCode.METHOD_NOT_ALLOWED],
      [new ConflictException(), 409, CommonErrorCode.CONFLICT],
      [new PayloadTooLargeException(), 413, CommonErrorCode.PAYLOAD_TOO_LARGE],
      [new UnsupportedMediaTypeException(), 415, CommonErrorCode.UNSUPPORTED_MEDIA_TYPE],
      [
        new HttpException('ThrottlerException: Too Many Requests', HttpStatus.TOO_MANY_REQUESTS),
        429,
        CommonErrorCode.TOO_MANY_REQUESTS,
      ],
    ])('answers %p with its own status %d and code %s', (exception, status, code) => {
      const [answered, body] = errorResponse(exception, logger);
      expect(answered).toBe(status);
      expect(body.error.code).toBe(code);
      expect(body.error.message.length).toBeGreaterThan(10);
      expect(logger.error).not.toHaveBeenCalled();
    });

    it('keeps 400 as VALIDATION_FAILED with the reason and an empty field list', () => {
      const [status, body] = errorResponse(new BadRequestException('Unexpected end of JSON input'), logger);
      expect(status).toBe(400);
      expect(body.error).toEqual({
        code: CommonErrorCode.VALIDATION_FAILED,
        message: 'The request could not be read: Unexpected end of JSON input. Send a valid JSON body.',
        details: { fields: [] },
      });
    });

    it('maps a body-parser error by its status (an unsupported charset is 415, not 400)', () => {
      const parserError = Object.assign(new Error('unsupported charset "LATIN1"'), {
        status: 415,
        statusCode: 415,
        type: 'charset.unsupported',
      });
      const [status, body] = errorResponse(parserError, logger);
      expect(status).toBe(415);
      expect(body.error.code).toBe(CommonErrorCode.UNSUPPORTED_MEDIA_TYPE);
      expect(body.error.message).toContain('unsupported charset "LATIN1"');
      expect(body.error.message).toContain('application/json');
    });

    it('tells a 401 how to authenticate and a 429 to wait', () => {
      expect(errorResponse(new UnauthorizedException(), logger)[1].error.message).toContain(
        'Authorization: Bearer <key>',
      );
      expect(errorResponse(new HttpException('slow down', 429), logger)[1].error.message).toContain('Retry-After');
    });

    it('keeps the status of any other 4xx, with REQUEST_REJECTED', () => {
      const [status, body] = errorResponse(new HttpException('I am a teapot', 418), logger);
      expect(status).toBe(418);
      expect(body.error.code).toBe(CommonErrorCode.REQUEST_REJECTED);
      expect(body.error.message).toContain('I am a teapot');
    });
  });

  it("answers a DomainError with its code's status and details", () => {
    const [status, body] = errorResponse(
      new DomainError(CommonErrorCode.NOT_FOUND, 'Session s1 not found.', { id: 's1' }),
      logger,
    );
    expect(status).toBe(404);
    expect(body.error).toEqual({
      code: CommonErrorCode.NOT_FOUND,
      message: 'Session s1 not found.',
      details: { id: 's1' },
    });
  });

  it("answers anything else with 500 INTERNAL and an incident id, logged with its error and the request's fields", () => {
    const error = new TypeError('x is undefined');
    const [status, body] = errorResponse(error, logger, { requestId: 'req-9', tenantId: 'acme' });
    expect(status).toBe(500);
    expect(body.error.code).toBe(CommonErrorCode.INTERNAL);
    expect(body.error.message).not.toContain('x is undefined');
    expect(logger.error).toHaveBeenCalledWith({
      msg: expect.stringContaining(String(body.error.details.incidentId)),
      requestId: 'req-9',
      tenantId: 'acme',
      err: error,
    });
  });
});
