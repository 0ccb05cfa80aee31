import 'reflect-metadata';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEnum,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import Ajv from 'ajv';
import { jsonSchemaFromDto } from './feign-dto-schema.converter';

enum Channel {
  Web = 'web',
  Phone = 'phone',
}

class AddressDto {
  @ApiProperty() @IsString() city: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(4, 10) zip?: string;
}

class LineDto {
  @IsString() sku: string;
  @IsInt() @Min(1) quantity: number;
}

class SearchDto {
  @ApiProperty({ description: 'Customer id' }) @IsString() @Matches(/^c-\d+$/) customerId: string;
  @ApiPropertyOptional({ enum: ['OPEN', 'CLOSED'] }) @IsOptional() @IsIn(['OPEN', 'CLOSED']) status?: string;
  @ApiProperty() @IsInt() @Min(1) @Max(50) limit: number;
  @ApiProperty() @IsNumber() ratio: number;
  @ApiProperty() @IsBoolean() includeItems: boolean;
  @ApiProperty({ type: [String] }) @IsArray() @ArrayMaxSize(5) @IsString({ each: true }) tags: string[];
  @ApiPropertyOptional({ enum: Channel, isArray: true }) @IsOptional() channels?: Channel[];
  @ApiProperty({ type: () => AddressDto }) @ValidateNested() @Type(() => AddressDto) address: AddressDto;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => LineDto) lines?: LineDto[];
  @IsEnum(Channel) channel: Channel;
}

describe('jsonSchemaFromDto', () => {
  const schema = jsonSchemaFromDto(SearchDto);
  const props = schema.properties as Record<string, Record<string, unknown>>;

  it('makes an object schema that forbids unknown properties', () => {
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('marks as required exactly the properties without @IsOptional / @ApiPropertyOptional', () => {
    expect(schema.required).toEqual(['customerId', 'limit', 'ratio', 'includeItems', 'tags', 'address', 'channel']);
  });

  it('maps primitives with their constraints and descriptions', () => {
    expect(props.customerId).toEqual({ type: 'string', pattern: '^c-\\d+$', description: 'Customer id' });
    expect(props.limit).toEqual({ type: 'integer', minimum: 1, maximum: 50 });
    expect(props.ratio).toEqual({ type: 'number' });
    expect(props.includeItems).toEqual({ type: 'boolean' });
  });

  it('maps enums from @ApiProperty, @IsIn and @IsEnum', () => {
    expect(props.status).toEqual({ type: 'string', enum: ['OPEN', 'CLOSED'] });
    expect(props.channel).toEqual({ type: 'string', enum: ['web', 'phone'] });
    expect(props.channels).toEqual({ type: 'array', items: { type: 'string', enum: ['web', 'phone'] } });
  });

  it('maps arrays of primitives with array constraints', () => {
    expect(props.tags).toEqual({ type: 'array', items: { type: 'string' }, maxItems: 5 });
  });

  it('inlines nested DTOs, alone or in arrays, with their own required lists', () => {
    expect(props.address).toEqual({
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'string', minLength: 4, maxLength: 10 } },
      required: ['city'],
      additionalProperties: false,
    });
    expect(props.lines).toEqual({
      type: 'array',
      items: {
        type: 'object',
        properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
        required: ['sku', 'quantity'],
        additionalProperties: false,
      },
    });
  });

  it('produces a schema ajv compiles and that accepts and rejects as the DTO does', () => {
    const validate = new Ajv({ strict: false }).compile(schema);
    const valid = {
      customerId: 'c-1',
      limit: 5,
      ratio: 0.5,
      includeItems: true,
      tags: ['a'],
      address: { city: 'Oslo' },
      channel: 'web',
    };
    expect(validate(valid)).toBe(true);
    expect(validate({ ...valid, limit: 0 })).toBe(false);
    expect(validate({ ...valid, address: { city: 'Oslo', country: 'NO' } })).toBe(false);
    expect(validate({ ...valid, channel: 'fax' })).toBe(false);
  });

  it('refuses a property whose type cannot be told, naming it', () => {
    class Vague {
      @IsOptional() something?: unknown;
    }
    expect(() => jsonSchemaFromDto(Vague)).toThrow(/Vague\.something: cannot tell its type/);
  });

  it('refuses recursive DTOs instead of looping', () => {
    class TreeNode {
      @IsString() label: string;
      @IsOptional() @ValidateNested({ each: true }) @Type(() => TreeNode) children?: TreeNode[];
    }
    expect(() => jsonSchemaFromDto(TreeNode)).toThrow(/TreeNode → TreeNode: recursive/);
  });
});
