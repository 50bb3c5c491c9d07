import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedSandbox, type StartedSandbox } from '../runner/config/embedded-sandbox.ts';
import { ConfigError } from '../runner/config/load-config.ts';
import { optionalSettings } from '../runner/config/optional-settings.ts';
import { resolveRun } from '../runner/config/resolve.ts';
import type { RunConfig } from '../runner/config/run-config.ts';
import { findingLine, problemsIn, type Finding, type Severity } from '../runner/doctor/findings.ts';
import { SIDE_EFFECTS } from '../runner/doctor/route-probe.ts';
import { HttpClient } from '../runner/http/client.ts';
import { LocalBudget } from '../runner/http/rate-limit.ts';
import { retryPolicyOf } from '../runner/http/retry.ts';
import { Redactor } from '../kit/redact.ts';
import { preflight } from '../runner/preflight.ts';
import { TokenCache } from '../runner/tokens.ts';
import { isStartedScript, parseCli } from './cli.ts';
import { profilesNeeding, rowsOf, settingsTable } from './doctor-settings.ts';
import { replaceMarkedBlock } from './readme-block.ts';

const doctorCli = {
  summary:
    'Checks the configuration against the target in seconds, without running a check: hosts, a token per service, every route, the webhook path, and the optional settings each profile needs.',
  usage: 'npm run doctor -- [options]',
  options: { 'settings-table': { type: 'boolean' }, 'write-docs': { type: 'boolean' } },
  describe: {
    'settings-table': 'print the table of optional settings and exit, probing nothing',
    'write-docs': 'write that table into docs/doctor.md and exit, probing nothing',
  },
  epilogue: `Side effects on the target: ${SIDE_EFFECTS}\n\nExit codes: 0 nothing definite is wrong (warnings say what could not be decided), 2 the configuration is wrong, each problem named.`,
} as const;

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const DOCS = join(repoRoot, 'docs/doctor.md');
const MARK: Record<Severity, string> = { ok: 'ok     ', warning: 'WARNING', problem: 'PROBLEM' };

function section(title: string, findings: readonly Finding[], redactor: Redactor): string[] {
  if (findings.length === 0) return [];
  return [title, ...findings.map((f) => `  ${MARK[f.severity]} ${redactor.text(findingLine(f))}`)];
}

/**
 * The doctor's whole work, its exit code returned: with the command line, and the environment it resolves the
 * configuration from when one is given (the self-tests call it in their own process), else the process's own.
 */
export async function doctorCommand(
  argv: string[] = process.argv.slice(2),
  env?: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const cli = parseCli(doctorCli, argv);
  if (cli.values['settings-table']) {
    console.log(settingsTable());
    return 0;
  }
  if (cli.values['write-docs']) {
    replaceMarkedBlock(DOCS, 'settings', settingsTable());
    console.log(`written: the table of optional settings in ${DOCS}`);
    return 0;
  }
  const started = performance.now();
  let resolved: RunConfig;
  try {
    resolved = env ? resolveRun(env) : resolveRun();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  const { suite: config } = resolved;
  const redactor = new Redactor(config.secrets);
  let sandbox: StartedSandbox | undefined;
  if (resolved.sandbox) {
    sandbox = startEmbeddedSandbox(resolved.sandbox);
    try {
      await sandbox.ready;
    } catch (error) {
      console.error(
        `The embedded sandbox cannot be used as configured:\n  ${redactor.text(error instanceof Error ? error.message : String(error))}`,
      );
      return 2;
    }
  }
  try {
    const http = new HttpClient(retryPolicyOf(config.http), new LocalBudget(config.http.rateLimitBudgetMs));
    const findings = await preflight(config, new TokenCache(http, redactor), {
      http,
      redactor,
      targetIsHere: sandbox !== undefined,
    });
    const target = resolved.sandbox
      ? `the embedded sandbox at ${resolved.sandbox.url}`
      : config.services.identity.baseUrl;
    const [reach, routes, webhooks] = (['reach', 'route', 'webhook'] as const).map((topic) =>
      findings.filter((f) => f.topic === topic),
    ) as [Finding[], Finding[], Finding[]];
    const lines = [
      `Doctor: ${target}, profile ${config.profile}`,
      ...section('Hosts and tokens', reach, redactor),
      ...(routes.length
        ? section(
            'Routes (each answer compared with that of a path nothing serves under the same base URL)',
            routes,
            redactor,
          )
        : ['Routes: not probed until the hosts answer and the credentials are accepted']),
      ...(webhooks.length
        ? section('Webhooks', webhooks, redactor)
        : [`Webhooks: not probed: ${config.webhook.offReason ?? 'no receiver'}`]),
      `Optional settings (profile ${config.profile}):`,
      ...optionalSettings.map((s) => {
        const state = s.state(config);
        const failing = profilesNeeding(s.requirements);
        const consequence =
          state === 'set'
            ? ''
            : `: ${rowsOf(s.requirements)} ${state === 'unset' ? 'not configured' : 'partly configured'}${failing.includes(config.profile) ? `, which fails the ${config.profile} profile` : failing.length ? `; the ${failing.join(', ')} profile needs it` : ''}`;
        return `  ${state.padEnd(10)} ${s.variables.join(', ')}${consequence}`;
      }),
      `Side effects on the target: ${SIDE_EFFECTS}`,
    ];
    const problems = problemsIn(findings).length;
    lines.push(
      `${problems ? `${problems} problem${problems === 1 ? '' : 's'}: the run would stop before its tests (exit 2)` : 'No problem found'}; ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    console.log(lines.join('\n'));
    return problems ? 2 : 0;
  } finally {
    await sandbox?.stop();
  }
}

if (isStartedScript(import.meta.url)) process.exitCode = await doctorCommand();
