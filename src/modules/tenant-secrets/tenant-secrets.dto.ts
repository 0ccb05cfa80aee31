import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { PageMetaDto } from '@app/common/dto/page.dto';
import { HEADER_VALUE_TEXT } from '@app/modules/tool-registry/tool-definition.rules';

export class PutTenantSecretDto {
  @ApiProperty({
    description:
      'The secret value (stored encrypted with SECRETS_KEY, never returned); sent as-is where a header references it',
    example: 'ghp_xxxxxxxxxxxxxxxx',
    writeOnly: true,
  })
  @IsString()
  @CharLength(1, 8192, { message: 'value must be 1 to 8192 characters' })
  @Matches(HEADER_VALUE_TEXT, {
    message:
      'value must be text a header can carry: no line breaks, control characters or characters beyond U+00FF (it is sent as a header value)',
  })
  value: string;
}

export class TenantSecretDto {
  @ApiProperty({
    example: 'GHTOKEN',
    description: "Referenced as ${secret:NAME} in the headers of the tenant's tools and MCP services",
  })
  name: string;
  @ApiProperty() tenantId: string;
  @ApiProperty({ description: 'ISO-8601' }) createdAt: string;
  @ApiProperty({ description: 'ISO-8601: when the value was last set' }) updatedAt: string;
}

export class TenantSecretPageDto extends PageMetaDto {
  @ApiProperty({ type: [TenantSecretDto], description: 'Names and dates only; values are never returned' })
  items: TenantSecretDto[];
}
