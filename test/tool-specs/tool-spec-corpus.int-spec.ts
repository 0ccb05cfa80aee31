import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  anthropicSpecViolations,
  emitToolSpec,
  geminiSpecViolations,
  openAiResponsesSpecViolations,
  openAiSpecViolations,
  openAiStrictSpecViolations,
  type OpenAiToolSpec,
  type ToolSpecSource,
} from '@app/modules/agent-config/formats/model-formats';
import { ToolSchemaCompiler } from '@app/modules/tool-registry/tool-schema.compiler';
import { EverythingServerProcess } from '@test/executors/support/everything-server.process';
import { TOOL_SPEC_CORPUS } from './tool-spec-corpus';

const VALIDATORS = {
  openai: (tool: ToolSpecSource) => openAiSpecViolations(emitToolSpec('openai', tool).spec),
  anthropic: (tool: ToolSpecSource) => anthropicSpecViolations(emitToolSpec('anthropic', tool).spec),
  gemini: (tool: ToolSpecSource) => geminiSpecViolations(emitToolSpec('gemini', tool).spec),
  'openai-responses': (tool: ToolSpecSource) =>
    openAiResponsesSpecViolations(emitToolSpec('openai-responses', tool).spec),
} as const;

/** `name: problems` for each tool of `corpus` the format's validator refuses (empty when all pass). */
function refusals(corpus: ToolSpecSource[], validate: (tool: ToolSpecSource) => string[]): string[] {
  return corpus.flatMap((tool) => {
    const problems = validate(tool);
    return problems.length ? [`${tool.name}: ${problems.join('; ')}`] : [];
  });
}

/** Strict mode: a strict:true spec passes the strict validator; a strict:false one passes plain OpenAI and says why. */
function strictOutcome(tool: ToolSpecSource): { strict: boolean; problems: string[] } {
  const emitted = emitToolSpec('openai-strict', tool);
  const spec = emitted.spec as OpenAiToolSpec;
  const { warnings } = emitted;
  if (spec.function.strict === true) return { strict: true, problems: openAiStrictSpecViolations(spec) };
  const problems = openAiSpecViolations(spec);
  if (!warnings.some((w) => w.includes('strict: false because')))
    problems.push('emitted strict: false without a warning saying why');
  return { strict: false, problems };
}

describe('the tool-spec corpus, per provider (issue 11)', () => {
  const everything = new EverythingServerProcess('streamableHttp');
  let everythingTools: ToolSpecSource[] = [];

  beforeAll(async () => {
    await everything.start();
    const client = new Client({ name: 'corpus', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(everything.url)));
    const { tools } = await client.listTools();
    everythingTools = tools.map((t) => ({
      name: `everything_${t.name.replace(/-/g, '_')}`,
      description: t.description ?? '',
      parameters: t.inputSchema,
    }));
    await client.close();
  }, 30000);

  afterAll(() => everything.stop());

  const corpus = () => [...everythingTools, ...TOOL_SPEC_CORPUS];

  it("holds server-everything's tools and the written corpus, every schema one the registry accepts", () => {
    expect(everythingTools.length).toBeGreaterThanOrEqual(10);
    const compiler = new ToolSchemaCompiler();
    expect(corpus().flatMap((t) => compiler.checkDefinition(t.parameters).map((p) => `${t.name}: ${p}`))).toEqual([]);
  });

  it.each(Object.keys(VALIDATORS) as (keyof typeof VALIDATORS)[])(
    'every %s spec is one the provider accepts',
    (format) => {
      expect(refusals(corpus(), VALIDATORS[format])).toEqual([]);
    },
  );

  it("every strict spec passes strict mode's rules, the rest are plain OpenAI with a warning, and strict covers 80%", () => {
    const outcomes = corpus().map((tool) => ({ name: tool.name, ...strictOutcome(tool) }));
    expect(outcomes.filter((o) => o.problems.length).map((o) => `${o.name}: ${o.problems.join('; ')}`)).toEqual([]);
    const strict = outcomes.filter((o) => o.strict).length;
    expect(strict / outcomes.length).toBeGreaterThanOrEqual(0.8);
  });
});
