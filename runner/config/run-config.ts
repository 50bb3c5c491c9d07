import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import type { Flavor, SandboxOptions } from '../../sandbox/types.ts';

// The run's configuration: one typed value, resolved once from .env and the environment by runner/config/resolve.ts,
// and taken as it is by playwright.config.ts, the global setup, the reporters (runner/run-reporters.ts), the embedded
// sandbox and the workers (runner/config/hand-off.ts hands them its one serialization, a JSON round trip of this type:
// nothing in it is a function or a Date, which its type holds there). The checks see the part of it that is theirs: `suite`.

/** The embedded sandbox's options: data only, no callback, so that they cross to the workers with the rest. */
export type EmbeddedSandboxOptions = Pick<
  SandboxOptions,
  'webhookUrl' | 'webhookWarnings' | 'flaky503Rate' | 'far' | 'readLagMs' | 'extraApiKeys' | 'issuedTokensFile'
> & { host: string; port: number; flavor: Flavor; faults: string[]; tokenSecret: string };

/** The sandbox the run starts in its own process when no target is configured (IDENTITY_BASE_URL unset). */
export interface EmbeddedSandbox {
  /** http://127.0.0.1:<SANDBOX_PORT> */
  url: string;
  /** SANDBOX_PORT=0: the port of url was chosen free when the run was resolved. */
  anyPort?: true;
  /** What it is started with: the flavor and the faults the run's evidence names are these. */
  options: EmbeddedSandboxOptions;
}

/**
 * How far the embedded sandbox's reads trail its writes at most (the trailing flavor: SANDBOX_READ_LAG_MS), undefined
 * when they do not: the run then waits on its reads, not on its CPU, and lays out its workers for it
 * (runner/config/worker-count.ts, projects.ts).
 */
export function embeddedReadLagMs(sandbox: EmbeddedSandbox | undefined): number | undefined {
  const lagMs = sandbox?.options.flavor === 'trailing' ? sandbox.options.readLagMs : undefined;
  return lagMs ? lagMs : undefined;
}

/** Where the run's reports go, and what they link to. */
export interface RunReports {
  /** REPORTS_DIR: the matrix (conformance.md, .html, .json), junit.xml and results.json. */
  dir: string;
  /** TEST_RESULTS_DIR: Playwright's output folder. */
  testResultsDir: string;
  /** ALLURE_RESULTS_DIR, else REPORTS_DIR/allure-results when REPORTS_DIR is set, else allure-results. */
  allureResultsDir: string;
  /** ALLURE_HISTORY_PATH: the history npm run report appends to after a nightly run. */
  allureHistoryPath: string;
  /** SPEC_URL: where the interface document is published. */
  specUrl?: string;
  /** CONFORMANCE_SHARD=1: this run is one shard and writes only a blob report, to BLOB_DIR. */
  shard?: { blobDir: string };
  /** GITHUB_STEP_SUMMARY, which GitHub Actions sets: the verdict is appended there too. */
  stepSummary?: string;
}

/** What the console shows. */
export interface RunConsole {
  /** CONFORMANCE_QUIET=1: no start line. */
  quiet: boolean;
  /** CONFORMANCE_VERBOSE=1: every test's line as it ends. */
  verbose: boolean;
  /** CI is set: dots instead of lines where every test is listed, and no test.only. */
  ci: boolean;
}

/** npm run certify's bundle: where it goes and what signs it. */
export interface Certification {
  /** CERTIFICATION_DIR, absolute. */
  dir: string;
  /** CERTIFY_SIGNING_KEY: PEM text (a secret). */
  signingKey?: string;
  /** CERTIFY_SIGNING_KEY_FILE. */
  signingKeyFile?: string;
}

export interface RunConfig {
  /** The configuration the checks read. */
  suite: SuiteConfig;
  /** The embedded sandbox, when no target is configured. */
  sandbox?: EmbeddedSandbox;
  /** PREFLIGHT: the probes of the target before any test (runner/preflight.ts). */
  preflight: boolean;
  reports: RunReports;
  console: RunConsole;
  certification: Certification;
  /** The variables of schemas/config.schema.json the user set, in .env or the environment, by name. */
  given: string[];
  /**
   * Every variable the configuration was read from, the user's over the embedded sandbox's own (sandbox/target-env.ts),
   * with the seed and run tag chosen: the certification bundle lists them, secrets masked.
   */
  variables: Record<string, string>;
}
