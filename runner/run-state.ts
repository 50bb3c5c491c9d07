import type { StartedSandbox } from './config/embedded-sandbox.ts';
import type { RunConfig } from './config/run-config.ts';
import type { RunningBroker } from './broker.ts';
import type { EventHub } from './webhooks/event-hub.ts';
import type { RunProgress } from './run-progress.ts';
import type { ReportFiles } from '../reporters/run-reports.ts';

/**
 * What the runner process keeps for the length of a run, where playwright.config.ts, the global setup and the run's
 * progress reporter (all in that one process) find it: the run's configuration, the embedded sandbox it started, the run's token broker and its
 * webhook receivers. The reporters see none of it: they take the summary values of reporters/run-facts.ts.
 */
interface RunState {
  /** The run's configuration as playwright.config.ts resolved it (absent in a run of another configuration, the proof's). */
  run?: RunConfig;
  sandbox?: StartedSandbox;
  broker?: RunningBroker;
  /** The run's webhook receivers, one per WEBHOOK_LISTEN (runner/webhooks/event-hub.ts). */
  hubs?: EventHub[];
  /** Which tests have not ended, kept by the conformance reporter (absent in a run without it, such as the proof's). */
  progress?: RunProgress;
  /** The reports the run writes, marked "not finished" at its start (runner/run-reporters.ts startReports). */
  reports?: { files: ReportFiles; profile: string; environment: Record<string, string> };
}

const KEY = Symbol.for('conformance.runState');

export function runState(): RunState {
  const slot = globalThis as Record<symbol, RunState | undefined>;
  return (slot[KEY] ??= {});
}
