import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The bench's package measure: what an implementer's install of the packed package costs (on disk, packages, install
// time from a warm cache, the wall time of its run against the embedded sandbox), against a clone's npm ci and
// npm run conformance, measured alike. bench.ts gives it its runner of timed commands and writes the README block.

interface Timed {
  code: number | null;
  ms: number;
  cpuSeconds: number;
  output: string;
}
type Figure = { runs: number; medianSeconds: number; medianCpuSeconds: number };

export interface Footprint {
  install: Figure;
  /** node_modules on disk (du), MB. */
  megabytes: number;
  /** Entries of the installed package-lock.json, the project itself left out. */
  packages: number;
  run: Figure;
  /** The verdict of its last run against the embedded sandbox. */
  verdict: string;
}

export interface PackageMeasure {
  runs: number;
  measuredAt: string;
  machine: { cpus: number; node: string };
  /** The machine's one-minute load average when the measure began and when it ended: how shared it was. */
  load: [number, number];
  clone: Footprint;
  installed: Footprint;
  /** The tarball npm pack made: its files and size, MB. */
  tarball: { files: number; megabytes: number };
}

export interface PackageBench {
  repoRoot: string;
  runs: number;
  timed: (command: string, env: Record<string, string | undefined>, cwd?: string) => Promise<Timed>;
  figure: (values: Timed[]) => Figure;
  /** The environment of one run against the embedded sandbox: free ports, outputs in the scratch folder. */
  runEnv: (scratch: string) => Promise<Record<string, string>>;
  log: (line: string) => void;
}

const COMMAND = 'identity-proofing-conformance';

/**
 * What `npm ci` of a fresh clone reads before the suite's own files matter: package.json, the lock file and the prepare
 * script npm runs at its end (tools/prepare.js, which builds nothing there), copied into an empty folder.
 */
export function copyCloneInstall(repoRoot: string, folder: string): void {
  for (const name of ['package.json', 'package-lock.json', join('tools', 'prepare.js')]) {
    mkdirSync(dirname(join(folder, name)), { recursive: true });
    writeFileSync(join(folder, name), readFileSync(join(repoRoot, name)));
  }
}
const INSTALL_FLAGS = '--prefer-offline --no-audit --no-fund';

const megabytesOf = (dir: string) =>
  +(Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]) / 1024).toFixed(0);
const packagesOf = (folder: string) =>
  Object.keys(
    (JSON.parse(readFileSync(join(folder, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> })
      .packages,
  ).filter((path) => path !== '').length;
const verdictOf = (scratch: string) =>
  (JSON.parse(readFileSync(join(scratch, 'reports', 'conformance.json'), 'utf8')) as { result: string }).result;

function ok(what: string, one: Timed): Timed {
  if (one.code !== 0) throw new Error(`${what} exited ${one.code}:\n${one.output.slice(-2000)}`);
  return one;
}

/** One install into a fresh folder, its footprint, then a run against the embedded sandbox from where it was run. */
async function once(
  bench: PackageBench,
  prepare: (folder: string) => void,
  install: string,
  run: { command: string; cwd: (folder: string) => string },
): Promise<{ install: Timed; run: Timed; megabytes: number; packages: number; verdict: string }> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-package-'));
  const scratch = mkdtempSync(join(tmpdir(), 'bench-package-run-'));
  try {
    prepare(folder);
    const installed = ok(install, await bench.timed(install, {}, folder));
    const megabytes = megabytesOf(join(folder, 'node_modules'));
    const packages = packagesOf(folder);
    const ran = ok(run.command, await bench.timed(run.command, await bench.runEnv(scratch), run.cwd(folder)));
    return { install: installed, run: ran, megabytes, packages, verdict: verdictOf(scratch) };
  } finally {
    rmSync(folder, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

function footprint(bench: PackageBench, all: Awaited<ReturnType<typeof once>>[]): Footprint {
  const last = all.at(-1);
  return {
    install: bench.figure(all.map((one) => one.install)),
    megabytes: last?.megabytes ?? 0,
    packages: last?.packages ?? 0,
    run: bench.figure(all.map((one) => one.run)),
    verdict: last?.verdict ?? '',
  };
}

const unmeasured: Footprint = {
  install: { runs: 0, medianSeconds: Number.NaN, medianCpuSeconds: Number.NaN },
  megabytes: 0,
  packages: 0,
  run: { runs: 0, medianSeconds: Number.NaN, medianCpuSeconds: Number.NaN },
  verdict: '',
};

export async function measurePackage(bench: PackageBench): Promise<PackageMeasure> {
  const { repoRoot, runs } = bench;
  const measuredAt = new Date().toISOString();
  const machine = { cpus: cpus().length, node: process.version };
  const loadNow = () => +(loadavg()[0] ?? 0).toFixed(1);
  const began = loadNow();
  if (runs === 0)
    return {
      runs,
      measuredAt,
      machine,
      load: [began, began],
      clone: unmeasured,
      installed: unmeasured,
      tarball: { files: 0, megabytes: 0 },
    };
  const work = mkdtempSync(join(tmpdir(), 'bench-pack-'));
  try {
    const packed = ok('npm pack', await bench.timed(`npm pack --json --pack-destination ${JSON.stringify(work)}`, {}));
    const [tarball] = JSON.parse(
      packed.output.slice(packed.output.indexOf('[\n'), packed.output.lastIndexOf(']') + 1),
    ) as Array<{
      filename: string;
      entryCount: number;
      size: number;
    }>;
    const file = join(work, tarball?.filename ?? '');
    const implementers = (folder: string) =>
      writeFileSync(join(folder, 'package.json'), '{ "name": "an-implementers-repository", "private": true }\n');
    const installPackage = `npm install ${INSTALL_FLAGS} ${JSON.stringify(file)}`;
    // A first install, not counted, fills npm's cache with the package's dependencies at the versions it resolves.
    const warm = mkdtempSync(join(tmpdir(), 'bench-package-warm-'));
    try {
      implementers(warm);
      ok(installPackage, await bench.timed(installPackage, {}, warm));
    } finally {
      rmSync(warm, { recursive: true, force: true });
    }
    const installed = [];
    for (let i = 0; i < runs; i += 1) {
      const one = await once(bench, implementers, installPackage, {
        command: `npx --no-install ${COMMAND} run`,
        cwd: (folder) => folder,
      });
      bench.log(
        `  package ${i + 1}: install ${(one.install.ms / 1000).toFixed(1)} s, ${one.megabytes} MB, ${one.packages} packages, run ${(one.run.ms / 1000).toFixed(1)} s`,
      );
      installed.push(one);
    }
    // The clone: its package.json and lock file in an empty folder, npm ci; the run is npm run conformance in this
    // checkout (the scratch folder holds no suite).
    const clone = [];
    for (let i = 0; i < runs; i += 1) {
      const one = await once(bench, (folder) => copyCloneInstall(repoRoot, folder), `npm ci ${INSTALL_FLAGS}`, {
        command: 'npm run conformance',
        cwd: () => repoRoot,
      });
      bench.log(
        `  clone ${i + 1}: npm ci ${(one.install.ms / 1000).toFixed(1)} s, ${one.megabytes} MB, ${one.packages} packages, run ${(one.run.ms / 1000).toFixed(1)} s`,
      );
      clone.push(one);
    }
    return {
      runs,
      measuredAt,
      machine,
      load: [began, loadNow()],
      clone: footprint(bench, clone),
      installed: footprint(bench, installed),
      tarball: { files: tarball?.entryCount ?? 0, megabytes: +((tarball?.size ?? 0) / 1024 / 1024).toFixed(1) },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The README's "Install as a package" figures, from the bench's measure. */
export function packageTable(p: PackageMeasure): string {
  const { machine, measuredAt, load } = p;
  if (p.runs === 0) return 'Not measured yet: `npm run bench -- --package-only`.';
  const s = (f: Figure) => `${f.medianSeconds} s (${f.medianCpuSeconds} CPU-s)`;
  return [
    `Measured ${measuredAt.slice(0, 10)} on a ${machine.cpus}-core machine, Node ${machine.node}, by \`npm run bench\` (\`--package-runs\`, medians of ${p.runs} runs; npm's cache warm; the machine's load average ${load[0]} when it began, ${load[1]} when it ended; \`reports/bench.json\`):`,
    '',
    '| | the clone (`npm ci`) | the package (`npm install <tarball>` into an empty folder) |',
    '|---|---|---|',
    `| on disk (\`node_modules\`) | ${p.clone.megabytes} MB | ${p.installed.megabytes} MB (the tarball ${p.tarball.megabytes} MB, ${p.tarball.files} files) |`,
    `| packages (\`package-lock.json\` entries) | ${p.clone.packages} | ${p.installed.packages} |`,
    `| install, npm's cache warm (\`--prefer-offline\`) | ${s(p.clone.install)} | ${s(p.installed.install)} |`,
    `| run against the embedded sandbox, wall time | ${s(p.clone.run)} (\`npm run conformance\`) | ${s(p.installed.run)} (\`npx ${COMMAND} run\`) |`,
    `| its verdict | ${p.clone.verdict} | ${p.installed.verdict} |`,
  ].join('\n');
}
