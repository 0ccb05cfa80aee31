import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolSchemaCompiler } from '../tool-schema.compiler';
import { checkToolDefinition } from '../tool-definition.rules';
import { modelFormatChecks } from './tool-model-format.checks';
import {
  enumsExplicit,
  hitlText,
  idempotency,
  redaction,
  requiredExplicit,
  resultSize,
  sideEffectDeclared,
  tenantScope,
  timeout,
} from './tool-definition.checks';
import type { ChecklistSettings, ChecklistTool, ToolChecklist, ToolChecklistItem } from './tool-checklist.types';

/**
 * The new-tool checklist (contract v2): runs on a stored tool of any source or on a definition not
 * stored. Pure reads of the definition and the settings; nothing is written.
 */
@Injectable()
export class ToolChecklistService {
  private readonly settings: ChecklistSettings;

  constructor(
    private readonly schemas: ToolSchemaCompiler,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.settings = {
      toolDefaultTimeoutMs: config.toolDefaultTimeoutMs,
      toolMaxAttempts: config.toolMaxAttempts,
      resultDefaultMaxInlineChars: config.resultDefaultMaxInlineChars,
    };
  }

  run(tool: ChecklistTool): ToolChecklist {
    const items: ToolChecklistItem[] = [
      this.schemaValid(tool),
      ...modelFormatChecks(tool),
      requiredExplicit(tool),
      enumsExplicit(tool),
      sideEffectDeclared(tool),
      hitlText(tool),
      timeout(tool, this.settings),
      idempotency(tool, this.settings),
      tenantScope(tool),
      redaction(tool),
      resultSize(tool, this.settings),
    ];
    return { ok: items.every((item) => item.status !== 'FAIL'), items };
  }

  /**
   * The lossy rewrites the model formats need for this tool (MODEL_* items that are not PASS), for the
   * sync and start-up reports; empty when every format takes the schema as it is.
   */
  lossyRewrites(tool: Pick<ChecklistTool, 'name' | 'description' | 'parameters'>): string[] {
    return modelFormatChecks(tool)
      .filter((item) => item.status !== 'PASS')
      .map((item) => `${item.check}: ${item.message}`);
  }

  private schemaValid(tool: ChecklistTool): ToolChecklistItem {
    const problems = [
      ...this.schemas.checkDefinition(tool.parameters).map((p) => `parameters ${p}`),
      ...checkToolDefinition(tool).flatMap((f) => f.problems.map((p) => `${f.field} ${p}`)),
    ];
    if (problems.length === 0)
      return {
        check: 'SCHEMA_VALID',
        status: 'PASS',
        message: 'The parameters are a valid JSON Schema object and the definition is consistent.',
      };
    return { check: 'SCHEMA_VALID', status: 'FAIL', message: `${problems.join('; ')}.` };
  }
}
