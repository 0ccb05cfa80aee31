import type { ToolSpecSource } from '@app/modules/agent-config/formats/model-formats';

/**
 * Tool schemas of the kinds MCP servers publish, for the per-provider acceptance suites. The first
 * group is written from well-known MCP servers' published definitions (modelcontextprotocol/servers,
 * github-mcp-server); the second holds the edge cases issue 11 lists. server-everything's tools are
 * listed live from the real server by tool-spec-corpus.int-spec.ts.
 */
const obj = (properties: Record<string, unknown>, required: string[] = [], extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required,
  ...extra,
});
const DRAFT07 = 'http://json-schema.org/draft-07/schema#';
const LONG = 'Reads files. '.repeat(700); // 9,100 characters: over OpenAI's 1,024 cap

export const WELL_KNOWN_TOOLS: ToolSpecSource[] = [
  {
    name: 'read_multiple_files',
    description: 'Read the contents of multiple files simultaneously.',
    parameters: {
      $schema: DRAFT07,
      ...obj({ paths: { type: 'array', items: { type: 'string' } } }, ['paths'], { additionalProperties: false }),
    },
  },
  {
    name: 'edit_file',
    description: 'Make line-based edits to a text file.',
    parameters: {
      $schema: DRAFT07,
      ...obj(
        {
          path: { type: 'string' },
          edits: {
            type: 'array',
            items: obj(
              { oldText: { type: 'string', description: 'Text to search for' }, newText: { type: 'string' } },
              ['oldText', 'newText'],
              { additionalProperties: false },
            ),
          },
          dryRun: { type: 'boolean', default: false, description: 'Preview changes using git-style diff format' },
        },
        ['path', 'edits'],
        { additionalProperties: false },
      ),
    },
  },
  {
    name: 'search_files',
    description: 'Recursively search for files and directories matching a pattern.',
    parameters: obj(
      {
        path: { type: 'string' },
        pattern: { type: 'string' },
        excludePatterns: { type: 'array', items: { type: 'string' }, default: [] },
      },
      ['path', 'pattern'],
    ),
  },
  {
    name: 'fetch',
    description: 'Fetches a URL from the internet and optionally extracts its contents as markdown.',
    parameters: {
      description: 'Parameters for fetching a URL.',
      title: 'Fetch',
      ...obj(
        {
          url: { description: 'URL to fetch', format: 'uri', minLength: 1, title: 'Url', type: 'string' },
          max_length: {
            default: 5000,
            description: 'Maximum number of characters to return.',
            exclusiveMaximum: 1000000,
            exclusiveMinimum: 0,
            title: 'Max Length',
            type: 'integer',
          },
          start_index: { default: 0, minimum: 0, title: 'Start Index', type: 'integer' },
          raw: { default: false, title: 'Raw', type: 'boolean' },
        },
        ['url'],
      ),
    },
  },
  {
    name: 'create_entities',
    description: 'Create multiple new entities in the knowledge graph',
    parameters: obj(
      {
        entities: {
          type: 'array',
          items: obj(
            {
              name: { type: 'string' },
              entityType: { type: 'string' },
              observations: { type: 'array', items: { type: 'string' } },
            },
            ['name', 'entityType', 'observations'],
          ),
        },
      },
      ['entities'],
    ),
  },
  {
    name: 'sequentialthinking',
    description: LONG,
    parameters: obj(
      {
        thought: { type: 'string' },
        nextThoughtNeeded: { type: 'boolean' },
        thoughtNumber: { type: 'integer', minimum: 1 },
        totalThoughts: { type: 'integer', minimum: 1 },
        isRevision: { type: 'boolean' },
        revisesThought: { type: 'integer', minimum: 1 },
        branchId: { type: 'string' },
      },
      ['thought', 'nextThoughtNeeded', 'thoughtNumber', 'totalThoughts'],
    ),
  },
  {
    name: 'create_issue',
    description: 'Create a new issue in a GitHub repository',
    parameters: obj(
      {
        owner: { type: 'string' },
        repo: { type: 'string' },
        title: { type: 'string' },
        body: { type: 'string' },
        assignees: { type: 'array', items: { type: 'string' } },
        labels: { type: 'array', items: { type: 'string' } },
        milestone: { type: 'number' },
      },
      ['owner', 'repo', 'title'],
    ),
  },
  {
    name: 'puppeteer_evaluate',
    description: 'Execute JavaScript in the browser console',
    parameters: obj({ script: { type: 'string' } }, ['script']),
  },
  {
    name: 'puppeteer_navigate',
    description: 'Navigate to a URL',
    parameters: obj(
      {
        url: { type: 'string' },
        launchOptions: { type: 'object', description: 'PuppeteerJS LaunchOptions. Default null.' },
        allowDangerous: { type: 'boolean' },
      },
      ['url'],
    ),
  },
  {
    name: 'query',
    description: 'Run a read-only SQL query',
    parameters: obj({ sql: { type: 'string' } }),
  },
  {
    name: 'get_current_time',
    description: 'Get current time in a specific timezone',
    parameters: obj({ timezone: { type: 'string', description: "IANA timezone name (e.g., 'America/New_York')." } }, [
      'timezone',
    ]),
  },
  {
    name: 'git_log',
    description: 'Shows the commit logs',
    parameters: {
      title: 'GitLog',
      ...obj(
        {
          repo_path: { title: 'Repo Path', type: 'string' },
          max_count: { default: 10, title: 'Max Count', type: 'integer' },
        },
        ['repo_path'],
      ),
    },
  },
  {
    name: 'slack_post_message',
    description: 'Post a new message to a Slack channel',
    parameters: obj({ channel_id: { type: 'string' }, text: { type: 'string' }, blocks: { type: 'array' } }, [
      'channel_id',
      'text',
    ]),
  },
  {
    name: 'brave_web_search',
    description: 'Performs a web search using the Brave Search API.',
    parameters: obj(
      {
        query: { type: 'string', description: 'Search query (max 400 chars, 50 words)' },
        count: { type: 'number', default: 10 },
        offset: { type: 'number', default: 0 },
      },
      ['query'],
    ),
  },
  {
    name: 'pydantic_model_tool',
    description: 'A FastMCP tool whose argument is a pydantic model (Optional fields, $defs, titles).',
    parameters: {
      $defs: {
        Priority: { enum: ['low', 'high'], title: 'Priority', type: 'string' },
        Task: obj(
          {
            title: { title: 'Title', type: 'string' },
            due: { anyOf: [{ format: 'date', type: 'string' }, { type: 'null' }], default: null, title: 'Due' },
            priority: { $ref: '#/$defs/Priority', default: 'low' },
          },
          ['title'],
          { title: 'Task' },
        ),
      },
      ...obj(
        { task: { $ref: '#/$defs/Task' }, notify: { anyOf: [{ type: 'boolean' }, { type: 'null' }], default: null } },
        ['task'],
      ),
      title: 'create_taskArguments',
    },
  },
];

export const EDGE_CASE_TOOLS: ToolSpecSource[] = [
  {
    name: 'root_any_of',
    description: 'Look up by id or by email.',
    parameters: {
      type: 'object',
      properties: { verbose: { type: 'boolean' } },
      anyOf: [obj({ id: { type: 'string' } }, ['id']), obj({ email: { type: 'string', format: 'email' } }, ['email'])],
    },
  },
  {
    name: 'root_one_of',
    description: 'Exactly one of url or path.',
    parameters: {
      type: 'object',
      oneOf: [obj({ url: { type: 'string', format: 'uri' } }, ['url']), obj({ path: { type: 'string' } }, ['path'])],
    },
  },
  {
    name: 'root_all_of',
    description: 'The real parameters live in allOf members.',
    parameters: {
      type: 'object',
      allOf: [obj({ a: { type: 'string' } }, ['a']), obj({ b: { type: 'integer' } }, ['b'])],
    },
  },
  {
    name: 'root_all_of_ref',
    description: 'allOf of a $ref and an object.',
    parameters: {
      type: 'object',
      $defs: { Base: obj({ id: { type: 'string' } }, ['id']) },
      allOf: [{ $ref: '#/$defs/Base' }, obj({ note: { type: 'string' } })],
    },
  },
  {
    name: 'root_not_enum',
    description: 'Root not and if/then.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      not: { required: ['a', 'b'] },
      if: { required: ['a'] },
      then: { properties: { a: { minLength: 2 } } },
    },
  },
  {
    name: 'tuple_draft07',
    description: 'A draft-07 tuple.',
    parameters: {
      $schema: DRAFT07,
      ...obj(
        {
          point: { type: 'array', items: [{ type: 'number' }, { type: 'number' }], additionalItems: false },
          pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] },
        },
        ['point'],
      ),
    },
  },
  {
    name: 'tuple_prefix_items',
    description: 'A 2020-12 tuple.',
    parameters: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...obj(
        {
          range: {
            type: 'array',
            prefixItems: [
              { type: 'string', format: 'date' },
              { type: 'string', format: 'date' },
            ],
            items: false,
          },
        },
        ['range'],
      ),
    },
  },
  {
    name: 'array_without_items',
    description: 'Arrays with no items anywhere.',
    parameters: obj(
      {
        values: { type: 'array' },
        nested: { type: 'array', items: { type: 'array' } },
        maybe: { type: ['array', 'null'] },
      },
      ['values'],
    ),
  },
  {
    name: 'maps_and_free_form',
    description: 'Maps and free-form objects.',
    parameters: obj(
      {
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        metadata: { type: 'object' },
        options: { type: 'object', properties: {}, additionalProperties: true },
        labels: { type: 'object', patternProperties: { '^x-': { type: 'string' } } },
        mixed: { type: 'object', properties: { known: { type: 'string' } }, additionalProperties: { type: 'number' } },
      },
      ['headers'],
    ),
  },
  {
    name: 'recursive_tree',
    description: 'A recursive schema.',
    parameters: {
      $defs: {
        Node: obj({ value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }, [
          'value',
        ]),
      },
      ...obj({ root: { $ref: '#/$defs/Node' } }, ['root']),
    },
  },
  {
    name: 'recursive_self_root',
    description: 'A property that refers back to the root.',
    parameters: obj({ name: { type: 'string' }, parent: { $ref: '#' } }, ['name']),
  },
  {
    name: 'no_type_nodes',
    description: 'Nodes with no type.',
    parameters: obj(
      {
        anything: {},
        described: { description: 'whatever you like' },
        list: { type: 'array', items: {} },
        boolSchema: true,
      },
      ['anything'],
    ),
  },
  {
    name: 'mixed_enums',
    description: 'Enums of several types.',
    parameters: obj(
      {
        level: { enum: [1, 'high', true] },
        size: { enum: ['s', 'm', null] },
        code: { type: 'integer', enum: [200, 404] },
        mode: { const: 3 },
      },
      ['level'],
    ),
  },
  {
    name: 'refs_and_defs',
    description: 'Definitions in both spellings and pointers.',
    parameters: {
      $schema: DRAFT07,
      definitions: {
        Color: { type: 'string', enum: ['red', 'green'] },
        Point: obj({ x: { type: 'number' }, y: { type: 'number' } }, ['x', 'y']),
      },
      ...obj(
        {
          color: { $ref: '#/definitions/Color' },
          at: { $ref: '#/definitions/Point' },
          also: { $ref: '#/properties/color' },
        },
        ['color'],
      ),
    },
  },
  {
    name: 'formats_galore',
    description: 'Formats every provider reads differently.',
    parameters: obj(
      {
        when: { type: 'string', format: 'date-time' },
        day: { type: 'string', format: 'date' },
        site: { type: 'string', format: 'uri' },
        mail: { type: 'string', format: 'email' },
        id: { type: 'string', format: 'uuid' },
        ratio: { type: 'number', format: 'double' },
        count: { type: 'integer', format: 'int64' },
        blob: { type: 'string', format: 'byte', contentEncoding: 'base64' },
      },
      ['when'],
    ),
  },
  {
    name: 'long_descriptions',
    description: 'x'.repeat(8000),
    parameters: obj({ q: { type: 'string', description: 'y'.repeat(8000) } }, ['q']),
  },
  {
    name: 'nullable_unions',
    description: 'Null unions every way.',
    parameters: obj(
      {
        a: { type: ['string', 'null'] },
        b: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
        c: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        d: { type: 'string', nullable: true },
        e: { type: ['string', 'integer', 'boolean'] },
      },
      ['a'],
    ),
  },
  {
    name: 'nested_combinators',
    description: 'allOf and oneOf below the root.',
    parameters: obj(
      {
        filter: { allOf: [obj({ field: { type: 'string' } }, ['field']), obj({ op: { enum: ['eq', 'ne'] } }, ['op'])] },
        target: {
          oneOf: [
            obj({ kind: { const: 'user' }, id: { type: 'string' } }, ['kind', 'id']),
            obj({ kind: { const: 'team' }, slug: { type: 'string' } }, ['kind', 'slug']),
          ],
        },
        either: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
      },
      ['filter'],
    ),
  },
  {
    name: 'constraints_everywhere',
    description: 'Keywords strict mode does not support.',
    parameters: obj(
      {
        name: { type: 'string', minLength: 1, maxLength: 40, pattern: '^[a-z]+$' },
        tags: {
          type: 'array',
          items: { type: 'string' },
          uniqueItems: true,
          minItems: 1,
          maxItems: 5,
          contains: { const: 'x' },
        },
        score: { type: 'number', minimum: 0, maximum: 1, multipleOf: 0.5 },
        props: obj({ a: { type: 'string' } }, [], {
          minProperties: 1,
          maxProperties: 3,
          propertyNames: { pattern: '^[a-z]$' },
        }),
        dep: { type: 'string', default: 'x', examples: ['y'], deprecated: true, readOnly: true, 'x-vendor': 1 },
      },
      ['name'],
      { dependentRequired: { name: ['tags'] } },
    ),
  },
  {
    name: 'no_parameters',
    description: 'Takes no arguments.',
    parameters: { type: 'object' },
  },
  {
    name: 'empty_properties',
    description: 'Takes no arguments either.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'deeply_nested',
    description: 'Twelve levels of objects.',
    parameters: obj({ l1: nest(12) }, ['l1']),
  },
  {
    name: 'required_ghost',
    description: 'required names a property that does not exist.',
    parameters: obj({ a: { type: 'string' } }, ['a', 'ghost']),
  },
  {
    name: '_leading_underscore',
    description: 'A name at the edge of the rule.',
    parameters: obj({ x: { type: 'string' } }),
  },
  {
    name: 'a'.repeat(64),
    description: 'The longest name.',
    parameters: obj({ x: { type: 'string' } }),
  },
  {
    name: 'dash-and_underscore-mix',
    description: 'Dashes in the name.',
    parameters: obj({
      'weird key': { type: 'string' },
      'with.dot': { type: 'integer' },
      __proto__x: { type: 'string' },
    }),
  },
  {
    name: 'odata_and_bracket_keys',
    description: 'Property keys as REST APIs name query parameters: Anthropic refuses them as they are.',
    parameters: obj(
      {
        $top: { type: 'integer' },
        '@odata.type': { type: 'string' },
        'filter[name]': { type: 'string' },
        città: { type: 'string' },
        ['x'.repeat(70)]: { type: 'boolean' },
        query: obj({ 'sort by': { type: 'string' }, 'page[size]': { type: 'integer' } }, ['page[size]']),
        items: { type: 'array', items: obj({ '$ref-like': { type: 'string' } }) },
      },
      ['$top', 'filter[name]'],
    ),
  },
  {
    name: 'root_any_of_required_only',
    description: 'At least one of a or b: members that carry only required.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    },
  },
  {
    name: 'odd_values',
    description: 'Enums and consts of objects, refs with siblings, property names that look like keywords.',
    parameters: {
      $defs: { Base: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
      ...obj(
        {
          shape: { enum: [{ kind: 'circle' }, { kind: 'square' }] },
          fixed: { const: { v: 1 } },
          ext: { $ref: '#/$defs/Base', description: 'extended', properties: { extra: { type: 'boolean' } } },
          $ref: { type: 'string' },
          type: { type: 'string', enum: ['a', 'b'] },
          properties: { type: 'object', properties: { inner: { type: 'integer' } } },
        },
        ['type'],
      ),
    },
  },
  {
    name: 'openapi_style',
    description: 'OpenAPI 3.0 nullable and example keywords, as Java and FastAPI exporters write them.',
    parameters: obj(
      {
        when: { type: 'string', format: 'date-time', nullable: true, example: '2026-01-01T00:00:00Z' },
        n: { type: 'integer', format: 'int32', nullable: true },
      },
      ['when'],
    ),
  },
];

function nest(levels: number): Record<string, unknown> {
  return levels === 0 ? { type: 'string' } : obj({ next: nest(levels - 1), tag: { type: 'string' } }, ['next']);
}

export const TOOL_SPEC_CORPUS: ToolSpecSource[] = [...WELL_KNOWN_TOOLS, ...EDGE_CASE_TOOLS];
