import {
  JsonSchema,
  REJECT_POLICIES,
  SIDE_EFFECT_LEVELS,
  TOOL_NAME_PATTERN,
  TOOL_REQUIREMENTS,
} from '@app/modules/tool-registry/tool-registry.types';
import type { ToolSchemaCompiler } from '@app/modules/tool-registry/tool-schema.compiler';
import type { LocalToolMetadata } from './feign-tool.options';
import { LOCAL_TOOL_SERVICE_TYPE, LocalToolDefinition, LocalToolLocation } from './feign-tool.types';
import { toolNameFromMethod } from './feign-tool-name';
import { jsonSchemaFromDto } from './feign-dto-schema.converter';

export type DefinitionResult =
  { definition: LocalToolDefinition; problems: [] } | { definition?: undefined; problems: string[] };

/** Resolves a decorator's options into registry fields, or says every problem with them. */
export function resolveLocalToolDefinition(
  meta: LocalToolMetadata,
  at: LocalToolLocation,
  schemas: ToolSchemaCompiler,
): DefinitionResult {
  const o = meta.options;
  const problems: string[] = [];
  const name = o.name ?? toolNameFromMethod(at.method);
  if (!TOOL_NAME_PATTERN.test(name))
    problems.push(
      `name "${name}" must be 1-64 letters, digits, _ or -, starting with a letter or _ (set options.name)`,
    );
  if (typeof o.description !== 'string' || o.description.trim().length === 0 || o.description.length > 8000) {
    problems.push('description is required (1-8000 characters): the model reads it to choose the tool');
  }
  if (!SIDE_EFFECT_LEVELS.includes(o.sideEffect))
    problems.push(`sideEffect must be declared as one of ${SIDE_EFFECT_LEVELS.join(', ')}`);
  if (o.timeoutMs !== undefined && (!Number.isInteger(o.timeoutMs) || o.timeoutMs < 1 || o.timeoutMs > 3_600_000)) {
    problems.push('timeoutMs must be a whole number of milliseconds from 1 to 3600000');
  }
  for (const [field, list] of [
    ['permissionTags', o.permissionTags],
    ['tags', o.tags],
  ] as const) {
    if (list !== undefined && !(Array.isArray(list) && list.every((t) => typeof t === 'string' && t.length > 0)))
      problems.push(`${field} must be non-empty strings`);
  }
  const badRequirement = (o.requires ?? []).find((r) => !TOOL_REQUIREMENTS.includes(r));
  if (badRequirement !== undefined)
    problems.push(`requires: ${String(badRequirement)} is not one of ${TOOL_REQUIREMENTS.join(', ')}`);
  if (o.hitl?.rejectPolicy !== undefined && !REJECT_POLICIES.includes(o.hitl.rejectPolicy)) {
    problems.push(`hitl.rejectPolicy must be one of ${REJECT_POLICIES.join(', ')}`);
  }
  const parameters = parametersSchema(o.parameters, problems);
  if (parameters) problems.push(...schemas.checkDefinition(parameters).map((p) => `parameters: JSON Schema ${p}`));
  if (problems.length) return { problems };
  return {
    problems: [],
    definition: {
      name,
      description: o.description,
      parameters: parameters!,
      source: meta.source,
      serviceType: LOCAL_TOOL_SERVICE_TYPE[meta.source],
      endpoint: `${at.provider}.${at.method}`,
      sideEffect: o.sideEffect,
      timeoutMs: o.timeoutMs ?? null,
      permissionTags: [...(o.permissionTags ?? [])],
      tags: [...(o.tags ?? [])],
      requires: [...(o.requires ?? [])],
      hitl: o.hitl ? asJson(o.hitl) : null,
      result: o.result ? asJson(o.result) : null,
    },
  };
}

function parametersSchema(parameters: unknown, problems: string[]): JsonSchema | undefined {
  if (typeof parameters === 'function') {
    try {
      return jsonSchemaFromDto(parameters as new () => unknown);
    } catch (err) {
      problems.push(`parameters: ${(err as Error).message}`);
      return undefined;
    }
  }
  if (parameters === null || typeof parameters !== 'object') {
    problems.push('parameters is required: a JSON Schema object or a DTO class');
    return undefined;
  }
  return asJson(parameters as JsonSchema);
}

/** A copy as the database will give it back (JSON), so the checksum of the row and of the decorator agree. */
function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
