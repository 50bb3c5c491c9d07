import { describeConfigIssue, firstPerVariable, problem } from '../../schemas/config-problems.ts';
import { schemaIssues } from '../../schemas/registry.ts';
import { configSchema, configVariables, CONFIG_SCHEMA_ID } from '../../schemas/variables.ts';
import type { SandboxTarget } from '../../sandbox/target-env.ts';

/** A configuration problem: one line per variable, naming it, its value (secrets redacted) and what is expected. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `Configuration is not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/** The embedded sandbox as a target (sandbox/target-env.ts) and the token secret the run chose for it: values, not text. */
export type EmbeddedTarget = SandboxTarget & { SANDBOX_TOKEN_SECRET: string };

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The configuration's variables as a run has them: the user's, checked against schemas/config.schema.json (a JSON
 * one parsed), else the embedded sandbox's target, taken as it is, else the schema's default.
 */
export class ConfigValues {
  private constructor(
    private readonly given: Readonly<Record<string, unknown>>,
    readonly target: EmbeddedTarget | undefined,
  ) {}

  /** Throws ConfigError, one line per variable, when one the user gave is not valid or one needed is missing. */
  static read(env: Env, target?: EmbeddedTarget): ConfigValues {
    const problems: string[] = [];
    const given: Record<string, unknown> = {};
    for (const name of configVariables) {
      const value = env[name];
      if (value === undefined || value === '') continue;
      if (configSchema.properties[name]?.$ref !== '#/$defs/jsonObject') given[name] = value;
      else
        try {
          given[name] = JSON.parse(value);
        } catch (error) {
          problems.push(problem(name, value, `valid JSON (${(error as Error).message})`));
        }
    }
    // What the embedded target gives is not missing.
    const missing = (name: unknown) => typeof name === 'string' && !(target && name in target);
    for (const issue of schemaIssues(CONFIG_SCHEMA_ID, given))
      if (issue.params.missingProperty === undefined || missing(issue.params.missingProperty))
        problems.push(describeConfigIssue(issue, given));
    if (problems.length > 0) throw new ConfigError(firstPerVariable(problems));
    return new ConfigValues(given, target);
  }

  /** The user set it, in .env or the environment. */
  isGiven(name: string): boolean {
    return this.given[name] !== undefined;
  }

  /** The user's text, else the target's (when it is text), else the default; undefined when none gives one. */
  text(name: string): string | undefined {
    const fromTarget: unknown = this.target?.[name as keyof EmbeddedTarget];
    return (
      (this.given[name] as string | undefined) ??
      (typeof fromTarget === 'string' ? fromTarget : undefined) ??
      configSchema.properties[name]?.default
    );
  }

  /** A variable that has a value: a required one, or one with a default. */
  required(name: string): string {
    return this.text(name) as string;
  }

  integer(name: string): number {
    return Number(this.required(name));
  }

  /**
   * A setting the user gives as text, parsed here (a problem naming it when it does not parse), and the embedded
   * target as a value; `fallback` is the text taken when neither gives it.
   */
  parsed<T>(
    name: string,
    fromTarget: T | undefined,
    parse: (text: string) => T,
    problems: string[],
    fallback?: string,
  ): T | undefined {
    const text = (this.given[name] as string | undefined) ?? (fromTarget === undefined ? fallback : undefined);
    if (text === undefined) return fromTarget;
    try {
      return parse(text);
    } catch (error) {
      problems.push(problem(name, text, (error as Error).message));
      return undefined;
    }
  }

  /** A JSON object the user gives (parsed by read), else the target's. */
  object(name: 'RESELLER_SHARED_CONTEXT'): Record<string, unknown> | undefined {
    return (this.given[name] as Record<string, unknown> | undefined) ?? this.target?.[name];
  }

  /** The values of every secret variable, the target's among them. */
  secrets(): string[] {
    return configVariables.flatMap((name) => {
      const value = configSchema.properties[name]?.secret ? this.text(name) : undefined;
      return value ? [value] : [];
    });
  }
}
