import { readFileSync } from 'node:fs';
import { diffMarkdown, diffRuns, type RunReport } from '../reporters/run-diff.ts';

// npm run diff -- <old conformance.json> <new conformance.json>: the requirements that changed outcome between two
// runs, for a nightly's "what broke since yesterday". Exit 1 when one got worse (now failed, blocked or warning),
// 2 on a bad argument.
function read(path: string | undefined, which: string): RunReport {
  if (!path) {
    console.error(`usage: npm run diff -- <old conformance.json> <new conformance.json> (the ${which} one is missing)`);
    process.exit(2);
  }
  try {
    const report = JSON.parse(readFileSync(path, 'utf8')) as RunReport;
    if (!Array.isArray(report.requirements)) throw new Error('it has no "requirements" list');
    return report;
  } catch (error) {
    console.error(`${path}: not a conformance.json (${error instanceof Error ? error.message : String(error)})`);
    process.exit(2);
  }
}

const [oldPath, newPath] = process.argv.slice(2);
const before = read(oldPath, 'old');
const after = read(newPath, 'new');
const changes = diffRuns(before, after);
process.stdout.write(diffMarkdown(before, after, changes));
process.exit(changes.some((c) => c.direction === 'worse') ? 1 : 0);
