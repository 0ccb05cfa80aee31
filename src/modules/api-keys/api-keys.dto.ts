import { IsSafeLine } from '@app/common/safe-text';
import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { API_ROLES, ApiRole } from '@app/common/auth/auth-context';
import { TENANT_ID_PATTERN } from '@app/modules/tool-registry/tool-registry.types';
import { PageMetaDto } from '@app/common/dto/page.dto';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'acme runtime (prod)', maxLength: 128 })
  @IsString()
  @CharLength(1, 128)
  @IsSafeLine()
  name: string;

  @ApiProperty({ enum: API_ROLES })
  @IsIn(API_ROLES)
  role: ApiRole;

  @ApiProperty({ example: 'acme', pattern: TENANT_ID_PATTERN.source })
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'tenantId must be 1-64 letters, digits, _ . or -' })
  tenantId: string;
}

export class ApiKeyDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: API_ROLES }) role: ApiRole;
  @ApiProperty() tenantId: string;
  @ApiProperty({ description: 'The first characters of the key, to tell keys apart' }) keyPrefix: string;
  @ApiProperty() createdAt: string;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'The key itself: shown once, stored only as a hash' }) key: string;
}

export class ApiKeyPageDto extends PageMetaDto {
  @ApiProperty({ type: [ApiKeyDto] }) items: ApiKeyDto[];
}
