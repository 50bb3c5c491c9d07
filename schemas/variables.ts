import { readFileSync } from 'node:fs';

export const CONFIG_SCHEMA_ID = 'https://conformance.example/schemas/config.schema.json';

interface VariableSchema {
  $ref?: string;
  enum?: string[];
  description?: string;
  default?: string;
  /**
   * Why the variable is read from the environment only: .env cannot give it, and a configuration that finds it there
   * refuses it, naming it (runner/config/resolve.ts).
   */
  environmentOnly?: string;
  /** Derived: the variable holds a secret (its $ref, or itself, is writeOnly). */
  secret: boolean;
}

interface ConfigSchemaFile {
  $defs: Record<string, { writeOnly?: boolean }>;
  properties: Record<string, Omit<VariableSchema, 'secret'>>;
  required: string[];
}

const file = JSON.parse(readFileSync(new URL('./config.schema.json', import.meta.url), 'utf8')) as ConfigSchemaFile;

/** The configuration schema's variables, each with its documentation and whether it is a secret. */
export const configSchema: { properties: Record<string, VariableSchema>; required: readonly string[] } = {
  properties: Object.fromEntries(
    Object.entries(file.properties).map(([name, schema]) => {
      const def = schema.$ref?.startsWith('#/$defs/') ? file.$defs[schema.$ref.slice('#/$defs/'.length)] : undefined;
      return [name, { ...schema, secret: def?.writeOnly === true }];
    }),
  ),
  required: file.required,
};

export const configVariables: readonly string[] = Object.keys(file.properties);

/** The variables read from the environment only (their schema says why: `environmentOnly`). */
export const environmentOnlyVariables: readonly string[] = configVariables.filter(
  (name) => file.properties[name]?.environmentOnly !== undefined,
);

const settingPattern = new RegExp(
  `(?<![A-Za-z0-9_-])(${[...configVariables].sort((a, b) => b.length - a.length).join('|')}|--[a-z][a-z0-9-]+)(?![A-Za-z0-9_])`,
  'g',
);

/**
 * The settings a "not configured" reason names, in order, once each: variables of schemas/config.schema.json and, for
 * the commands that take them (certify-client), options such as --scenario. Every report shows them beside the row, so
 * a user reads what to set; one place, so the variable in a reason is the variable the reports name.
 */
export function settingsNamedIn(text: string): string[] {
  return [...new Set([...text.matchAll(settingPattern)].map((m) => m[1] as string))];
}
