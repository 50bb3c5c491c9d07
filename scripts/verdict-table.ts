import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCli } from './cli.ts';
import { verdictTable } from './evidence/verdict-scenarios.ts';
import { replaceMarkedBlock } from './readme-block.ts';

/** `npm run verdict-table`: writes the table of docs/verdicts.md from reporters/run-verdict.ts, the one place it is decided. */
parseCli({
  summary:
    'Writes the table of docs/verdicts.md (profile × outcomes → words, exit code, JUnit, statement, verify-bundle) from the verdict function itself.',
  usage: 'npm run verdict-table',
  options: {},
  describe: {},
});
replaceMarkedBlock(
  join(fileURLToPath(new URL('..', import.meta.url)), 'docs', 'verdicts.md'),
  'verdicts',
  verdictTable(),
);
console.log('docs/verdicts.md: table written');
