/**
 * The TypeScript type of the values a JSON Schema (written `as const`) accepts, for the subset the request
 * bodies use: `type` string / integer / number / boolean / null / array (`items`) / object (`properties`,
 * `required`; without `properties` any object), `enum`, `const`, `anyOf`. Keywords that only narrow a value
 * (lengths, patterns, bounds) do not change its type. Lets one schema be the validator, the Swagger body
 * and the type of the validated value.
 */
export type FromSchema<S> = S extends { readonly anyOf: readonly (infer Member)[] }
  ? FromSchema<Member>
  : S extends { readonly enum: readonly (infer Value)[] }
    ? Value
    : S extends { readonly const: infer Value }
      ? Value
      : S extends { readonly type: 'string' }
        ? string
        : S extends { readonly type: 'integer' | 'number' }
          ? number
          : S extends { readonly type: 'boolean' }
            ? boolean
            : S extends { readonly type: 'null' }
              ? null
              : S extends { readonly type: 'array'; readonly items: infer Item }
                ? FromSchema<Item>[]
                : S extends { readonly type: 'object'; readonly properties: infer Properties }
                  ? ObjectOf<Properties, S extends { readonly required: readonly (infer Name)[] } ? Name : never>
                  : S extends { readonly type: 'object' }
                    ? Record<string, unknown>
                    : unknown;

type ObjectOf<Properties, Required> = Flatten<
  { -readonly [K in keyof Properties & Required]: FromSchema<Properties[K]> } & {
    -readonly [K in Exclude<keyof Properties, Required>]?: FromSchema<Properties[K]>;
  }
>;

type Flatten<T> = { [K in keyof T]: T[K] } & {};
