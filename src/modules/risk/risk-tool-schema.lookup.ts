/**
 * Finds the input JSON schema of a tool as the given tenant sees it, so `x-risk` hints apply when an
 * admin evaluates tool arguments. Optional: provided by the module that owns the tool registry.
 */
export type RiskToolSchemaLookup = (
  toolName: string,
  tenantId: string | null,
) => Promise<Record<string, unknown> | undefined>;

/** Injection token of the {@link RiskToolSchemaLookup}. */
export const RISK_TOOL_SCHEMA_LOOKUP = Symbol('RISK_TOOL_SCHEMA_LOOKUP');
