import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { configSchema } from '../schemas/variables.ts';

type Options = NonNullable<ParseArgsConfig['options']>;
/** The parsed values: a string option's text, a boolean option's presence. */
type Values<O extends Options> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { multiple: true } ? string[] : string;
};

export interface Cli<O extends Options> {
  /** One line: what the command does. */
  summary: string;
  /** The command line, e.g. "npm run diff -- <old.json> <new.json>". */
  usage: string;
  /** Each option with what it does; --help is added. */
  options: O;
  describe: Record<keyof O & string, string>;
  /** How many positional arguments it takes (default none). */
  positionals?: { min: number; max: number; names: string };
  /** Variables of the configuration schema it reads beyond the suite's own, listed with their descriptions. */
  variables?: string[];
  /** Printed last: its exit codes. */
  epilogue?: string;
}

/** The usage text of a command: its summary, its command line and its options. */
export function usageOf<O extends Options>(cli: Cli<O>): string {
  const lines = [cli.summary, '', `Usage: ${cli.usage}`, '', 'Options:'];
  for (const [name, option] of Object.entries(cli.options)) {
    const flag = `--${name}${option.type === 'string' ? ' <value>' : ''}`;
    lines.push(`  ${flag.padEnd(28)} ${cli.describe[name as keyof O & string]}`);
  }
  lines.push(`  ${'--help'.padEnd(28)} print this and exit`);
  if (cli.variables?.length) {
    lines.push('', 'Variables (also read from .env):');
    for (const name of cli.variables)
      lines.push(`  ${name.padEnd(28)} ${(configSchema.properties[name]?.description ?? '').split(/(?<=\.) /)[0]}`);
  }
  if (cli.epilogue) lines.push('', cli.epilogue);
  return lines.join('\n');
}

/**
 * The options and arguments of a script (node:util parseArgs): --help prints the usage and exits 0; an unknown
 * option, a missing value or the wrong number of arguments prints what is wrong and the usage, and exits 2.
 */
export function parseCli<O extends Options>(
  cli: Cli<O>,
  argv: string[] = process.argv.slice(2),
): { values: Values<O>; positionals: string[] } {
  const options = { ...cli.options, help: { type: 'boolean' as const } };
  try {
    const parsed = parseArgs({
      args: argv,
      options,
      allowPositionals: cli.positionals !== undefined,
      strict: true,
    }) as { values: Record<string, string | boolean | undefined>; positionals: string[] };
    if (parsed.values['help']) {
      console.log(usageOf(cli));
      process.exit(0);
    }
    const count = parsed.positionals.length;
    if (cli.positionals && (count < cli.positionals.min || count > cli.positionals.max)) {
      throw new Error(`expected ${cli.positionals.names}, got ${count} argument${count === 1 ? '' : 's'}`);
    }
    return parsed as { values: Values<O>; positionals: string[] };
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${usageOf(cli)}`);
    process.exit(2);
  }
}

/** A whole number from an option's text, or exit 2 naming the option. */
export function countOption(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,4}$/.test(text)) {
    console.error(`--${name} ${JSON.stringify(text)} is not valid: expected a whole number`);
    process.exit(2);
  }
  return Number(text);
}

/**
 * Whether the module of `moduleUrl` is the script Node was started with (`node --import tsx scripts/x.ts`), not one a
 * self-test imports to call its command in process. Both paths are resolved through links: Node gives the module's
 * URL by its real path and the script's as it was named.
 */
export function isStartedScript(moduleUrl: string): boolean {
  const started = process.argv[1];
  return started !== undefined && existsSync(started) && realpathSync(started) === fileURLToPath(moduleUrl);
}
