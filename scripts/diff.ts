import { readFileSync } from 'node:fs';
import { diffMarkdown, diffRuns, type RunReport } from '../reporters/run-diff.ts';
import { parseCli } from './cli.ts';

// npm run diff -- <old conformance.json> <new conformance.json>: the requirements that changed outcome between two
// runs, for a nightly's "what broke since yesterday". Exit 1 when one got worse (now failed, blocked or warning),
// 2 on a bad argument.
function read(path: string): RunReport {
  try {
    const report = JSON.parse(readFileSync(path, 'utf8')) as RunReport;
    if (!Array.isArray(report.requirements)) throw new Error('it has no "requirements" list');
    return report;
  } catch (error) {
    console.error(`${path}: not a conformance.json (${error instanceof Error ? error.message : String(error)})`);
    process.exit(2);
  }
}

const [oldPath = '', newPath = ''] = parseCli({
  summary: 'The requirements that changed outcome between two runs (their conformance.json).',
  usage: 'npm run diff -- <old conformance.json> <new conformance.json>',
  options: {},
  describe: {},
  positionals: { min: 2, max: 2, names: 'the old and the new conformance.json' },
  epilogue:
    'Exit codes: 0 nothing got worse, 1 a requirement got worse (now failed, blocked or warning), 2 bad arguments.',
}).positionals;
const before = read(oldPath);
const after = read(newPath);
const changes = diffRuns(before, after);
process.stdout.write(diffMarkdown(before, after, changes));
process.exit(changes.some((c) => c.direction === 'worse') ? 1 : 0);
