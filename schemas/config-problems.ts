import { schemaIssues, type SchemaIssue } from './registry.ts';
import { withoutUrlCredentials } from './url-password.ts';
import { configSchema, CONFIG_SCHEMA_ID } from './variables.ts';

// How a configuration problem is worded, one line per variable naming it, its value (secrets redacted) and what is
// expected: the run's configuration (runner/config/) and the sandbox's own command (sandbox/settings.ts) word theirs
// alike, from the same schema.

/** `NAME=<value> is not valid: expected ...`, the value shown as it may be (a secret by its length only). */
export function problem(name: string, value: unknown, expected: string): string {
  return `${name}=${shownValue(name, value)} is not valid: expected ${expected}`;
}

function shownValue(name: string, value: unknown): string {
  if (value === undefined) return '(unset)';
  if (configSchema.properties[name]?.secret) return `[REDACTED, ${String(value).length} characters]`;
  const text = withoutUrlCredentials(typeof value === 'string' ? value : JSON.stringify(value));
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 117)}...` : text);
}

/** One line for one issue of the configuration schema. */
export function describeConfigIssue(issue: SchemaIssue, raw: Record<string, unknown>): string {
  const missing = issue.params.missingProperty as string | undefined;
  if (missing) {
    const because =
      issue.keyword === 'dependentRequired' ? ` (required when ${String(issue.params.property)} is set)` : '';
    return `${missing} is not set: expected ${configSchema.properties[missing]?.description ?? 'a value'}${because}`;
  }
  const name = issue.instancePath.split('/')[1] ?? '(configuration)';
  const described = configSchema.properties[name];
  const shape = described?.$ref?.startsWith('#/$defs/') ? SHAPES[described.$ref.slice('#/$defs/'.length)] : undefined;
  const expected = described?.enum
    ? `one of ${described.enum.join(', ')}`
    : shape
      ? `${shape} (${described?.description ?? name})`
      : (described?.description ?? issue.message);
  return problem(name, raw[name], expected);
}

/** One line per variable: a value can break several schema rules (pattern and format), and a JSON value that did not parse is also missing. */
export function firstPerVariable(problems: string[]): string[] {
  const seen = new Set<string>();
  return problems.filter((line) => {
    const name = /^[A-Z0-9_]+/.exec(line)?.[0] ?? line;
    if (seen.has(name)) return false;
    seen.add(name);
    return true;
  });
}

/**
 * The problems of some variables alone, one line each, worded as the whole configuration words them: a command that
 * reads a few variables (npm run sandbox, npm run openapi) checks them against the same schema.
 */
export function variableProblems(env: Record<string, string | undefined>, names: readonly string[]): string[] {
  const raw = Object.fromEntries(
    names.filter((name) => env[name] !== undefined && env[name] !== '').map((name) => [name, env[name]]),
  );
  const issues = schemaIssues(CONFIG_SCHEMA_ID, raw).filter(
    (issue) => issue.params.missingProperty === undefined && (issue.instancePath.split('/')[1] ?? '') in raw,
  );
  return firstPerVariable(issues.map((issue) => describeConfigIssue(issue, raw)));
}

/** What a value of each shape of schemas/config.schema.json ($defs) looks like, said first when one is not valid. */
const SHAPES: Record<string, string> = {
  httpUrl: 'an http or https URL',
  route: '"METHOD /path"',
  positiveInteger: 'a whole number from 1',
  port: 'a port number from 0 to 65535',
  count: 'a whole number from 0 to 999',
  nonEmpty: 'a value without leading or trailing spaces',
  secret: 'a value without spaces',
  pemPrivateKey: 'PEM text of a private key (-----BEGIN PRIVATE KEY----- …)',
  jsonPointer: 'a JSON pointer such as /a/b',
  trigger: 'header:<name>=<value> or pointer:/path=<value>',
  proxyUrl: 'an http:// or https:// proxy URL, http://[user:password@]host:port',
};
