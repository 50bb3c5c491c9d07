import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import { requirement, type Area, type Level, type Place } from '../../catalog/catalog.ts';
import { testKeyIn } from '../../runner/http/user-agent.ts';
import type { Fault } from '../../sandbox/faults.ts';
import { flavorModule } from '../../sandbox/flavors/index.ts';
import { makeThrowawayPki } from '../../sandbox/pki.ts';
import { startSandbox, type Flavor, type RateLimits, type RunningSandbox } from '../../sandbox/server.ts';
import type { FarSettings, SecondCore } from '../../sandbox/types.ts';
import { sandboxTargetEnv } from '../../sandbox/target-env.ts';
import type { ListedTest } from '../../scripts/suite-listing.ts';
import { freePorts } from '../../runner/http/free-port.ts';
import { optionalSettings } from '../../runner/config/optional-settings.ts';

/**
 * The rate-limited flavor's limits in the proof run: 8 token requests per client per second, operations 30 at once,
 * then 100 a second, and a 429 without Retry-After on each client's first and every 25th request of each kind. The
 * suite meets them on every kind of request (the proof counts the 429s) and waits seconds in all, not minutes: a
 * Retry-After costs up to a second (its granularity), a backoff a few hundred milliseconds.
 */
export const PROOF_RATE_LIMITS: RateLimits = {
  tokenRequests: 8,
  tokenWindowMs: 1000,
  burst: 30,
  perSecond: 100,
  everyNth: 25,
};

/**
 * How far away the far flavor is in the proof run: a little, so that the proof stays quick, yet every event is late
 * (after its flow's answer), events cross, every other one comes twice, records wait, and every answer is held.
 */
export const PROOF_FAR: Omit<FarSettings, 'tls'> = {
  latencyMs: 2,
  eventDelayMs: { min: 50, max: 400 },
  redeliverEvery: 2,
  recordsDelayMs: 200,
  seed: 'proof-far',
};

/** How far the trailing flavor's reads trail in the proof run: enough that most reads after a write are re-sent. */
export const PROOF_READ_LAG_MS = 300;

/** Where the proof run's Playwright writes its output, each target's receiver its waits among it (proof.config.ts). */
export const PROOF_OUTPUT_DIR = 'test-results/proof-run';

/**
 * The detached target runs as a real target configured bare: no variable of an optional setting
 * (runner/config/optional-settings.ts), and none of the reseller's or the order triggers'. Its rows not configured are
 * then exactly the table's, each naming the variable to set (the claim `npm run doctor` stands on).
 */
export function withoutOptionalSettings(env: Record<string, string>): Record<string, string> {
  const optional = new Set(optionalSettings.flatMap((setting) => setting.variables));
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !optional.has(name) && !/^(RESELLER|ORDER_TRIGGER)_/.test(name)),
  );
}

export type TargetKind = 'clean' | 'portability' | 'fault' | 'round';

/** A fault as the proof run uses it: what it breaks, and, in a round, the keys of the tests that run with it. */
export interface FaultRun {
  id: string;
  requirement: string;
  level: Level;
  area: Area;
  place?: Place;
  /** The fault's class (sandbox/faults.ts faultClasses). */
  class?: string;
  /** Round targets: the tests this fault is given to (the tests citing its requirement, on its place). */
  tests?: string[];
  /** It breaks a precondition the checks share (sandbox/faults.ts): it stands alone. */
  sharedPrecondition?: true;
  /**
   * A webhook fault beside a round: its tests' requests are answered by a core of its own behind the round's address
   * (SandboxOptions.beside), which alone posts to the target's receiver.
   */
  ownCore?: true;
}

/**
 * One sandbox the suite runs against in the proof run, and the suite environment that targets it. A fault target
 * carries one fault; a round carries several, each given to the requests of the tests that check it (their
 * User-Agent names the test), no two sharing a test.
 */
export interface ProofTarget {
  name: string;
  kind: TargetKind;
  flavor: Flavor;
  faults: FaultRun[];
  env: Record<string, string>;
}

export interface ProofPlan {
  seed: number;
  targets: ProofTarget[];
}

/** Whether a test checks the fault's requirement, on its place when it has one: the checks a fault must not survive. */
export function checks(test: ListedTest, run: Pick<FaultRun, 'requirement' | 'place' | 'area'>): boolean {
  const webhookTest = test.file.startsWith('webhooks/');
  return (
    webhookTest === (run.area === 'webhooks') &&
    test.tags.includes(run.requirement) &&
    (run.place === undefined || test.tags.includes(`on:${run.place}`))
  );
}

/**
 * Faults that need a target of their own: those that break a precondition the checks share (its failure is remembered
 * for the whole target: in a round it would block the checks of the other faults). A token endpoint's other faults go
 * in a round like the others: the run's broker asks for its tokens with no test's User-Agent, so it is never given a
 * fault, and the token checks send their own requests.
 */
const standsAlone = (fault: Fault): boolean => fault.sharedPrecondition === true;

/**
 * Faults of the webhook checks, one per target: the target's receiver judges every delivery of its run, and every
 * such fault is checked by the same few webhook tests. Each goes beside a round (one worker for both) on a core of its
 * own (webhookBeside), as long as there are rounds; the rest stand alone.
 */
const ofWebhooks = (fault: Fault): boolean => requirement(fault.requirement).area === 'webhooks';

/** A fault as the proof run uses it. */
export function faultRunOf(fault: Fault): FaultRun {
  const req = requirement(fault.requirement);
  return {
    id: fault.id,
    requirement: fault.requirement,
    level: req.level,
    area: req.area,
    class: fault.class ?? 'request',
    ...(fault.place ? { place: fault.place } : {}),
    ...(fault.sharedPrecondition ? { sharedPrecondition: true as const } : {}),
  };
}

/**
 * The faults in rounds: each fault goes to the first round where none of its tests is taken yet (largest first), so
 * that every test of a round runs with exactly one fault, and a round costs one worker instead of one per fault.
 */
export function roundsOf(faults: readonly FaultRun[], tests: readonly ListedTest[]): FaultRun[][] {
  const selected = faults
    .map((run) => ({ ...run, tests: tests.filter((t) => checks(t, run)).map((t) => t.key) }))
    .sort((a, b) => b.tests.length - a.tests.length);
  const rounds: Array<{ runs: FaultRun[]; taken: Set<string> }> = [];
  for (const run of selected) {
    let round = rounds.find((r) => run.tests.every((key) => !r.taken.has(key)));
    if (!round) rounds.push((round = { runs: [], taken: new Set() }));
    round.runs.push(run);
    for (const key of run.tests) round.taken.add(key);
  }
  return rounds.map((r) => r.runs);
}

/**
 * The core of a webhook fault beside a round (SandboxOptions.beside). Its catch stays its own, whatever the round's
 * tests do and whenever their events would come:
 * - the requests of the fault's tests (their User-Agent names the test) are answered by a reference core with that
 *   fault, and no other request is: its cases, its last events (which a redelivering fault sends again) and its stale
 *   event are made by those tests alone;
 * - that core alone posts to the target's receiver; the round's core posts nowhere, so every delivery the webhook
 *   checks judge was caused by a request of the fault's tests, with the fault, as on a target of its own;
 * - the round's step-ups and document verifications still join the run's flows (runner/webhooks/step-up-flows.ts), and
 *   never get an event: a flow without one can hold a later flow of its channel back until its window ends, or leave
 *   a counted step-up's count unproven (its check then sends it again, alone, and judges every event that came after
 *   the first request anyway); it never gives an event to another flow. No check outside tests/webhooks reads events.
 * The round's tests run as in a round of their own (the events of no check of theirs are read), with the faults of
 * their tests only.
 */
export function webhookBeside(
  run: FaultRun,
  keyOf: (headers: IncomingHttpHeaders) => string,
  receiverUrl: string,
): SecondCore {
  const ownTests = new Set(run.tests ?? []);
  return { takes: (headers) => ownTests.has(keyOf(headers)), faults: [run.id], webhookUrl: receiverUrl };
}

/**
 * Starts the sandboxes of a proof run: the clean reference, the correct implementations that differ from it
 * (portability), a reference sandbox per webhook fault (each stands alone), and one per round of the others. Each
 * gets its own webhook receiver port, so the runs never see each other's events.
 */
export async function startProofTargets(
  faults: readonly Fault[],
  tests: readonly ListedTest[],
  seed: number,
): Promise<{ plan: ProofPlan; close: () => Promise<void>; sandboxes: RunningSandbox[] }> {
  const alone = faults.filter(standsAlone).map(faultRunOf);
  const rounds = roundsOf(faults.filter((f) => !standsAlone(f) && !ofWebhooks(f)).map(faultRunOf), tests);
  const webhookRuns = faults
    .filter((f) => !standsAlone(f) && ofWebhooks(f))
    .map((f) => ({ ...faultRunOf(f), tests: tests.filter((t) => checks(t, faultRunOf(f))).map((t) => t.key) }));
  const beside = webhookRuns.slice(0, rounds.length);
  alone.push(...webhookRuns.slice(rounds.length).map(({ tests: _given, ...run }) => run));
  const specs: Array<Omit<ProofTarget, 'env'>> = [
    { name: 'clean', kind: 'clean', flavor: 'reference', faults: [] },
    { name: 'portability/alternative', kind: 'portability', flavor: 'alternative', faults: [] },
    { name: 'portability/gateway', kind: 'portability', flavor: 'gateway', faults: [] },
    // Correct targets a real deployment resembles: one that answers 429 with Retry-After (token endpoints, operations,
    // orders), one whose webhooks never reach the receiver (run as a real target with no optional setting, so without
    // WEBHOOK_PUBLIC_URL).
    { name: 'portability/rate-limited', kind: 'portability', flavor: 'rate-limited', faults: [] },
    { name: 'portability/detached', kind: 'portability', flavor: 'detached', faults: [] },
    // Correct targets built as common stacks build them: a lenient parser (coercion, U+FFFD, no media-type check), and
    // a proto3 JSON writer that leaves every default-valued member out.
    { name: 'portability/lenient', kind: 'portability', flavor: 'lenient', faults: [] },
    { name: 'portability/proto3', kind: 'portability', flavor: 'proto3', faults: [] },
    // A target whose step-ups with images are document verification flows (6.3 docVerification true).
    { name: 'portability/document-step-up', kind: 'portability', flavor: 'document-step-up', faults: [] },
    // A deployment far away: answers held, events late, crossed and some twice, records after a while, HTTPS through a private CA.
    { name: 'portability/far', kind: 'portability', flavor: 'far', faults: [] },
    // Policies for values the document leaves open: tags kept in NFC with their outer whitespace trimmed, values of
    // more than 1,024 characters refused.
    { name: 'portability/normalising', kind: 'portability', flavor: 'normalising', faults: [] },
    // Service ids looked up ignoring letter case, as a store of UUIDs or ULIDs may: the near misses' case variant is observed.
    { name: 'portability/case-insensitive-ids', kind: 'portability', flavor: 'case-insensitive-ids', faults: [] },
    // A deployment whose reads trail its writes (a replica, a read model): 404 or an earlier state for a while.
    { name: 'portability/trailing', kind: 'portability', flavor: 'trailing', faults: [] },
    ...alone.map((run) => ({
      name: `fault/${run.id}`,
      kind: 'fault' as const,
      flavor: 'reference' as const,
      faults: [run],
    })),
    ...rounds.map((runs, index) => {
      const webhookFault = beside[index];
      return {
        name: `round/${index + 1}`,
        kind: 'round' as const,
        flavor: 'reference' as const,
        faults: webhookFault ? [...runs, { ...webhookFault, ownCore: true as const }] : runs,
      };
    }),
  ];
  const ports = await freePorts(specs.length);
  const runTag = randomBytes(4).toString('hex');
  const sandboxes: RunningSandbox[] = [];
  const targets: ProofTarget[] = [];
  // The far target's CA. Every target trusts it: the run has one token broker, whose HTTPS agent takes the first
  // project's TLS_CA_FILE, and a CA to trust changes nothing for a target over plain HTTP.
  const pki = makeThrowawayPki('/CN=Proof Private CA/O=Conformance Proof');
  const caDir = mkdtempSync(join(tmpdir(), 'proof-ca-'));
  const caFile = join(caDir, 'ca.pem');
  writeFileSync(caFile, pki.caCert);
  const closeAll = async () => {
    await Promise.all(sandboxes.map((s) => s.close()));
    rmSync(caDir, { recursive: true, force: true });
  };
  try {
    for (const [index, spec] of specs.entries()) {
      const tokenSecret = randomBytes(16).toString('hex');
      const webhookPort = ports[index] as number;
      const receiverUrl = `http://127.0.0.1:${webhookPort}/webhooks`;
      const ownCore = spec.faults.find((run) => run.ownCore);
      const faultOfTest = new Map(
        spec.kind === 'round'
          ? spec.faults
              .filter((run) => !run.ownCore)
              .flatMap((run) => (run.tests ?? []).map((key) => [key, run.id] as const))
          : [],
      );
      const keyOf = (headers: IncomingHttpHeaders) => testKeyIn(headers['user-agent']) ?? '';
      const sandbox = await startSandbox({
        flavor: spec.flavor,
        rateLimits: PROOF_RATE_LIMITS,
        far: { ...PROOF_FAR, tls: { key: pki.key, cert: pki.cert } },
        readLagMs: PROOF_READ_LAG_MS,
        tokenSecret,
        faults: spec.kind === 'fault' ? spec.faults.map((run) => run.id) : [],
        // A round: each request has the fault of the test that sent it, none when it names no test of the round.
        ...(spec.kind === 'round'
          ? {
              faultsOf: (headers: IncomingHttpHeaders) =>
                [faultOfTest.get(keyOf(headers))].filter((id) => id !== undefined),
            }
          : {}),
        // A webhook fault beside a round: its tests reach a core of their own, the only one that posts to the receiver.
        ...(ownCore ? { beside: webhookBeside(ownCore, keyOf, receiverUrl) } : { webhookUrl: receiverUrl }),
        // A fault run without webhook checks has no receiver: its sandbox's delivery failures are expected.
        warn: () => undefined,
      });
      sandboxes.push(sandbox);
      const target = sandboxTargetEnv({ url: sandbox.url, flavor: spec.flavor, tokenSecret });
      const env = {
        ...(spec.flavor === 'detached' ? withoutOptionalSettings(target) : target),
        WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`,
        TLS_CA_FILE: caFile,
        // The sandbox posts to the receiver on loopback: a receiver URL the target reaches, so the flows run.
        ...(flavorModule(spec.flavor).deliversToReceiver
          ? { WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${webhookPort}/webhooks` }
          : {}),
        // Loopback deliveries take milliseconds; a short wait keeps the faults that withhold an event quick.
        WEBHOOK_WAIT_MS: '1500',
        // The reference sandbox has records at once and shows a write at the first read, however busy the machine: only
        // a fault waits for these bounds, half a second (a few re-reads), not 2 s or 30 s.
        ...(spec.kind === 'fault' || spec.kind === 'round'
          ? { DOCUMENT_READY_TIMEOUT_MS: '500', READ_AFTER_WRITE_TIMEOUT_MS: '500' }
          : {}),
        // A fault that holds a request unanswered (a token endpoint that never answers) costs this long, not 30 s.
        ...(spec.faults.some((run) => run.sharedPrecondition) ? { HTTP_TIMEOUT_MS: '2000' } : {}),
        SEED: String(seed),
        RUN_TAG: runTag,
        PROFILE: 'gate',
      };
      targets.push({ ...spec, env });
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  return { plan: { seed, targets }, sandboxes, close: closeAll };
}
