import { MODEL_FORMATS } from '@app/modules/agent-config/formats/model-formats';

/**
 * `format` of a body that carries a model's tool calls (act, execute): the tool-specs format the model was given.
 * Arguments are mapped back only from what that format asked of the model (see ToolSchemaCompiler.reviveArguments).
 */
export const CALL_FORMAT_SCHEMA = {
  enum: MODEL_FORMATS,
  description:
    "The tool-specs format the model was given (as tool-specs' format). Only a model given the gemini spec had a map tool's arguments wrapped in arguments_json, so only its calls (and those sent without format) are unwrapped",
} as const;
