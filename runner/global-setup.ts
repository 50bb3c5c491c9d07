import type { FullConfig } from '@playwright/test';
import type { SuiteConfig } from '../kit/config/suite-config.ts';
import { retryPolicyOf } from './http/retry.ts';
import { findingLine, problemsIn, warningsIn } from './doctor/findings.ts';
import { Redactor } from '../kit/redact.ts';
import { startBroker } from './broker.ts';
import { BROKER_ENV } from './broker-client.ts';
import { embeddedProbes, preflight } from './preflight.ts';
import { runState } from './run-state.ts';
import { runFacts, type EventWaits } from '../reporters/run-facts.ts';
import { runCost } from './broker.ts';
import { EventHub } from './webhooks/event-hub.ts';
import { knownPath } from './doctor/webhook-probe.ts';
import { endBeforeTests } from './run-reporters.ts';

/** The suite configuration a project carries (playwright.config.ts sets use.config on every project). */
export function suiteOf(config: FullConfig): SuiteConfig {
  const suite = config.projects.map((p) => (p.use as { config?: SuiteConfig }).config).find(Boolean);
  if (!suite) throw new Error('No project carries the suite configuration (use.config)');
  return suite;
}

/**
 * Before any worker: the embedded sandbox is listening, the run's token broker runs (its address in the environment the
 * workers inherit), and, unless PREFLIGHT=0 (a run of playwright.config.ts only: the proof's targets are sandboxes it
 * started), the preflight has found every host answering, every credential accepted,
 * no route missed and the webhook path whole. A preflight problem ends the run here with exit code 2, one line each,
 * and no test run.
 */
export default async function globalSetup(config: FullConfig): Promise<() => Promise<void>> {
  const state = runState();
  try {
    await state.sandbox?.ready;
  } catch (error) {
    // A configuration problem like the preflight's: one line naming the variable, exit 2, no test run.
    const why = error instanceof Error ? error.message : String(error);
    console.error(`The embedded sandbox cannot be used as configured; no test was run:\n  ${why}`);
    endBeforeTests([`The embedded sandbox cannot be used as configured: ${why}`]);
    process.exit(2);
  }
  const suite = suiteOf(config);
  const broker = await startBroker({
    policy: retryPolicyOf(suite.http),
    rateLimitBudgetMs: suite.http.rateLimitBudgetMs,
    secrets: suite.secrets,
    targetConcurrency: suite.targetConcurrency,
  });
  state.broker = broker;
  // The broker listens only now, after the configuration was handed off: its address follows, the same way.
  // eslint-disable-next-line no-restricted-properties -- the hand-off to the workers, which inherit this environment
  Object.assign(process.env, { [BROKER_ENV.url]: broker.url, [BROKER_ENV.secret]: broker.secret });
  const redactor = new Redactor(suite.secrets);
  // The run's webhook receiver listens from the preflight to the run's end, and the workers reach it through the broker.
  const hubs = await startHubs(config, redactor);
  if (!Array.isArray(hubs)) {
    console.error(
      `Preflight: the target cannot be used as configured (1 problem); no test was run:\n  ${hubs.problem}`,
    );
    endBeforeTests([`Preflight: ${hubs.problem}`]);
    await Promise.all([broker.close(), state.sandbox?.stop()]);
    process.exit(2);
  }
  for (const hub of hubs) broker.serve(hub.routes());
  state.hubs = hubs;
  runFacts().cost = () => runCost(broker.stats());
  if (hubs.length > 0) runFacts().eventWaits = () => combinedWaits(hubs);
  const hub = hubs.find((h) => h.port === suite.webhook.port);
  if (!state.run?.preflight)
    for (const h of hubs) if (!h.path.proven) h.path = { ...h.path, probe: 'not run (PREFLIGHT=0)' };
  if (state.run?.preflight) {
    const given = new Set(state.run.given);
    const probe = state.sandbox ? embeddedProbes(given) : undefined;
    const findings = await preflight(suite, broker.cache, {
      http: broker.http,
      redactor,
      targetIsHere: state.sandbox !== undefined,
      ...(state.sandbox ? { embeddedGiven: given } : {}),
      ...(probe ? { probe } : {}),
      ...(hub ? { receiver: hub.receiver } : {}),
    });
    const problems = problemsIn(findings);
    // A token endpoint's odd answer is the token checks' to judge and name; the run says it there, not twice.
    const warnings = warningsIn(findings).filter((finding) => finding.topic !== 'reach');
    if (problems.length > 0) {
      console.error(
        `Preflight: the target cannot be used as configured (${problems.length} problem${problems.length === 1 ? '' : 's'}); no test was run:`,
      );
      for (const finding of problems) console.error(`  ${redactor.text(findingLine(finding))}`);
      endBeforeTests(problems.map((finding) => `Preflight: ${redactor.text(findingLine(finding))}`));
      await Promise.all([...hubs.map((h) => h.close()), state.sandbox?.stop()]);
      process.exit(2);
    }
    // What the probe of WEBHOOK_PUBLIC_URL found, for a flow whose event never came (kit/webhooks/receiver-path.ts).
    const webhookFinding = findings.find((finding) => finding.topic === 'webhook');
    if (hub && !hub.path.proven)
      hub.path = knownPath(
        suite,
        webhookFinding && {
          ...webhookFinding,
          text: redactor.text(webhookFinding.text),
          ...(webhookFinding.got ? { got: redactor.text(webhookFinding.got) } : {}),
        },
      );
    if (warnings.length > 0) {
      const lines = warnings.map((finding) => redactor.text(findingLine(finding)));
      console.log(
        `Preflight: ${warnings.length} thing${warnings.length === 1 ? '' : 's'} it could not decide (npm run doctor says more):`,
      );
      for (const line of lines) console.log(`  ${line}`);
      // Every report of the run carries them with its verdict.
      runFacts().preflightWarnings = lines;
    }
  }
  return async () => {
    await Promise.all(hubs.map((h) => h.close({ writeWaits: true })));
    await broker.close();
    await state.sandbox?.stop();
  };
}

/**
 * One receiver per WEBHOOK_LISTEN the projects name (a run has one; the proof's run one per target), unless its
 * WEBHOOK_MODE is off; or the one that cannot listen.
 */
async function startHubs(config: FullConfig, redactor: Redactor): Promise<EventHub[] | { problem: string }> {
  const hubs = new Map<number, EventHub>();
  for (const project of config.projects) {
    const suite = (project.use as { config?: SuiteConfig }).config;
    if (!suite || suite.webhook.mode === 'off' || hubs.has(suite.webhook.port)) continue;
    hubs.set(suite.webhook.port, new EventHub(suite, redactor, project.outputDir, () => runState().progress));
  }
  const started: EventHub[] = [];
  for (const hub of hubs.values()) {
    try {
      await hub.start();
      started.push(hub);
    } catch (error) {
      await Promise.all(started.map((h) => h.close()));
      return { problem: `WEBHOOK_LISTEN=${hub.listen}: ${(error as Error).message}` };
    }
  }
  return started;
}

/** The run's event waits over all its receivers (one per WEBHOOK_LISTEN). */
function combinedWaits(hubs: readonly EventHub[]): EventWaits {
  const all = hubs.map((hub) => hub.stats());
  const listened = all.filter((w) => w.listenedMs !== undefined).map((w) => w.listenedMs as number);
  return {
    mode: all.every((w) => w.mode === 'passive') ? 'passive' : 'active',
    windowMs: Math.max(...all.map((w) => w.windowMs)),
    awaited: all.reduce((sum, w) => sum + w.awaited, 0),
    latestDelayMs: Math.max(...all.map((w) => w.latestDelayMs)),
    longestLagMs: Math.max(...all.map((w) => w.longestLagMs)),
    windowEnds: all.flatMap((w) => w.windowEnds).sort((a, b) => a.endedAt - b.endedAt),
    ...(listened.length ? { listenedMs: Math.max(...listened) } : {}),
    deliveries: all.reduce((sum, w) => sum + w.deliveries, 0),
  };
}
