import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { resolve } from 'node:path';
import { catalogSha256, interfaceInfo } from '../catalog/catalog.ts';
import { suiteVersion } from '../reporters/run-environment.ts';
import { compiled, playwrightCli, playwrightConfig, productRoot } from './product.ts';

/** The product's one command; its name is the package's, so that `npx identity-proofing-conformance` finds it. */
export const COMMAND = 'identity-proofing-conformance';

interface Command {
  summary: string;
  /** The product's script it starts (without its extension), its options after the subcommand; absent for `run`. */
  script?: string;
}

/** The subcommands, each one line: a new one is its script and its summary. */
export const commands: Record<string, Command> = {
  run: { summary: 'run the conformance suite (PROFILE: gate, certify, certify-strict); options are Playwright’s' },
  doctor: { script: 'scripts/doctor', summary: 'check the settings and the target before a run' },
  certify: { script: 'scripts/certify', summary: 'run under the certify profile and write a signed bundle' },
  'verify-bundle': { script: 'scripts/verify-bundle', summary: 'check a certification bundle offline' },
  'certify-client': { script: 'scripts/certify-client', summary: 'judge a reseller client against the sandbox' },
  report: { script: 'scripts/report', summary: 'build the Allure report of the last run' },
  nightly: {
    script: 'scripts/nightly',
    summary: 'run the night: the run, its history, the Allure trend and what changed since last night',
  },
  sandbox: { script: 'sandbox/main', summary: 'serve the reference implementation (SANDBOX_PORT)' },
  openapi: { script: 'scripts/openapi', summary: 'write the OpenAPI document of the interface' },
  'merge-reports': { script: 'scripts/merge-reports', summary: 'judge the shards of one run together' },
  diff: { script: 'scripts/diff', summary: 'what changed between two runs’ conformance.json' },
};

const EXIT_CODES =
  'Exit codes: 0 conformant, 1 not conformant, 2 bad configuration or options (docs/verdicts.md); each subcommand’s --help lists its own.';

export function versionText(): string {
  return `${COMMAND} ${suiteVersion} (${interfaceInfo.title} ${interfaceInfo.version}, catalog SHA-256 ${catalogSha256})`;
}

export function usageText(): string {
  const lines = [
    `${COMMAND}: the conformance suite of the ${interfaceInfo.title} ${interfaceInfo.version}`,
    '',
    `Usage: ${COMMAND} [--env-file <path>] <command> [options]`,
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, { summary }]) => `  ${name.padEnd(16)} ${summary}`),
    '',
    'Options:',
    `  ${'--env-file <path>'.padEnd(16)} read the settings from this file (ENV_FILE; default .env of the current folder)`,
    `  ${'--version'.padEnd(16)} print the suite's version, the interface's and the catalog's digest`,
    `  ${'--help'.padEnd(16)} print this; <command> --help prints a command's`,
    '',
    'Settings come from the environment and from .env in the current folder; reports, results and bundles are written',
    'under the current folder unless a setting says otherwise (docs/configuration.md).',
    EXIT_CODES,
  ];
  return lines.join('\n');
}

/** `--env-file <path>` or `--env-file=<path>`, wherever it is, taken out of the arguments. */
function takeEnvFile(argv: string[]): { rest: string[]; envFile?: string; problem?: string } {
  const rest: string[] = [];
  let envFile: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '--env-file') {
      envFile = argv[i + 1];
      if (envFile === undefined) return { rest, problem: '--env-file expects the path of a .env file' };
      i += 1;
    } else if (arg.startsWith('--env-file=')) envFile = arg.slice('--env-file='.length);
    else rest.push(arg);
  }
  return envFile === undefined ? { rest } : { rest, envFile };
}

/** The command line of a subcommand: Playwright's for `run`, else Node on the product's script. */
function commandLine(name: string, command: Command, args: string[]): string[] {
  if (!command.script) return [playwrightCli(), 'test', '-c', playwrightConfig, ...args];
  const script = resolve(productRoot, `${command.script}${compiled ? '.js' : '.ts'}`);
  return [...(compiled ? [] : ['--import', import.meta.resolve('tsx')]), script, ...args];
}

/** The command: its exit code, the subcommand's. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const { rest, envFile, problem } = takeEnvFile(argv);
  const [name, ...args] = rest;
  if (problem) {
    console.error(`${problem}\n\n${usageText()}`);
    return 2;
  }
  if (name === '--version' || name === '-V') {
    console.log(versionText());
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usageText());
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    console.error(`${JSON.stringify(name)} is not a command of ${COMMAND}\n\n${usageText()}`);
    return 2;
  }
  if (!command.script && (args.includes('--help') || args.includes('-h'))) {
    console.log(
      [
        `${COMMAND} run: ${command.summary}.`,
        '',
        `Usage: ${COMMAND} run [playwright test options], e.g. --grep @ORD-409, --project orders`,
        '',
        EXIT_CODES,
        '',
        "Playwright's options:",
      ].join('\n'),
    );
  }
  // eslint-disable-next-line no-restricted-properties -- the environment given to the subcommand, a child process
  const env = { ...process.env, ...(envFile === undefined ? {} : { ENV_FILE: resolve(envFile) }) };
  const child = spawn(process.execPath, commandLine(name, command, args), { stdio: 'inherit', env });
  // A signal to this process (a CI job cancelled, a stopped sandbox) ends the subcommand too.
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, forward);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1)));
  });
}
