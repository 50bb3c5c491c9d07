import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { requirement, type Area, type Level } from '../../catalog/catalog.ts';
import { faultSuiteEnv, type Fault } from '../../sandbox/faults.ts';
import { flavorModule } from '../../sandbox/flavors/index.ts';
import { startSandbox, type Flavor, type RateLimits, type RunningSandbox } from '../../sandbox/server.ts';
import { sandboxTargetEnv } from '../../sandbox/target-env.ts';

/** The rate-limited flavor's limits in the proof run: 3 token requests per client per second, operations 15 at once, then 40 a second. */
export const PROOF_RATE_LIMITS: RateLimits = { tokenRequests: 3, tokenWindowMs: 1000, burst: 15, perSecond: 40 };

export type TargetKind = 'clean' | 'portability' | 'fault';

/** One sandbox the suite runs against in the proof run, and the suite environment that targets it. */
export interface ProofTarget {
  name: string;
  kind: TargetKind;
  flavor: Flavor;
  fault?: { id: string; requirement: string; level: Level; area: Area; place?: string };
  env: Record<string, string>;
}

export interface ProofPlan {
  seed: number;
  targets: ProofTarget[];
}

/**
 * Free loopback ports for the webhook receivers, taken below the ephemeral range that listen(0) and outgoing
 * connections draw from: the receivers bind them only later, in the child run, and an ephemeral port could be
 * handed to a sandbox or a connection meanwhile.
 */
export async function freePorts(count: number, from = 20_000 + Math.floor(Math.random() * 8_000)): Promise<number[]> {
  const ports: number[] = [];
  for (let port = from; ports.length < count && port < 32_000; port += 1) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) ports.push(port);
  }
  if (ports.length < count) throw new Error(`Only ${ports.length} free ports from ${from}; ${count} needed`);
  return ports;
}

/**
 * Starts the sandboxes of a proof run: the clean reference, the alternative implementation (portability), and one
 * reference sandbox per fault. Each gets its own webhook receiver port, so the runs never see each other's events.
 */
export async function startProofTargets(faults: readonly Fault[], seed: number): Promise<{ plan: ProofPlan; close: () => Promise<void>; sandboxes: RunningSandbox[] }> {
  const specs: Array<Omit<ProofTarget, 'env'>> = [
    { name: 'clean', kind: 'clean', flavor: 'reference' },
    { name: 'portability/alternative', kind: 'portability', flavor: 'alternative' },
    { name: 'portability/gateway', kind: 'portability', flavor: 'gateway' },
    // Correct targets a real deployment resembles: one that answers 429 with Retry-After (token endpoints, operations,
    // orders), one whose webhooks never reach the receiver (run as a real target: without WEBHOOK_PUBLIC_URL).
    { name: 'portability/rate-limited', kind: 'portability', flavor: 'rate-limited' },
    { name: 'portability/detached', kind: 'portability', flavor: 'detached' },
    ...faults.map((f) => {
      const req = requirement(f.requirement);
      return { name: `fault/${f.id}`, kind: 'fault' as const, flavor: 'reference' as const, fault: { id: f.id, requirement: f.requirement, level: req.level, area: req.area, ...(f.place ? { place: f.place } : {}) } };
    }),
  ];
  const ports = await freePorts(specs.length);
  const runTag = randomBytes(4).toString('hex');
  const sandboxes: RunningSandbox[] = [];
  const targets: ProofTarget[] = [];
  try {
    for (const [index, spec] of specs.entries()) {
      const tokenSecret = randomBytes(16).toString('hex');
      const webhookPort = ports[index] as number;
      const sandbox = await startSandbox({
        flavor: spec.flavor,
        // Tight enough that every project meets 429s, short enough that the waits stay a few seconds.
        rateLimits: PROOF_RATE_LIMITS,
        tokenSecret,
        faults: spec.fault ? [spec.fault.id] : [],
        webhookUrl: `http://127.0.0.1:${webhookPort}/webhooks`,
        // A fault run without webhook checks has no receiver: its sandbox's delivery failures are expected.
        warn: () => undefined,
      });
      sandboxes.push(sandbox);
      const env = {
        ...sandboxTargetEnv({ url: sandbox.url, flavor: spec.flavor, tokenSecret, faultSuiteEnv: faultSuiteEnv(spec.fault ? [spec.fault.id] : []) }),
        WEBHOOK_LISTEN: `127.0.0.1:${webhookPort}`,
        // The sandbox posts to the receiver on loopback: a receiver URL the target reaches, so the flows run.
        ...(flavorModule(spec.flavor).deliversToReceiver ? { WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${webhookPort}/webhooks` } : {}),
        // Loopback deliveries take milliseconds; a short wait keeps the faults that withhold an event quick.
        WEBHOOK_WAIT_MS: '1500',
        SEED: String(seed),
        RUN_TAG: runTag,
        PROFILE: 'gate',
      };
      targets.push({ ...spec, env });
    }
  } catch (error) {
    await Promise.all(sandboxes.map((s) => s.close()));
    throw error;
  }
  return { plan: { seed, targets }, sandboxes, close: async () => void (await Promise.all(sandboxes.map((s) => s.close()))) };
}
