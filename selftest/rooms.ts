// The rooms of the repository and what each may import: selftest/layering.spec.ts holds the tree to this table, and
// docs/architecture.md shows it (selftest/docs-current.spec.ts checks that it does).

const suite = 'catalog schemas kit reporters runner fixtures tests sandbox';
/** A room: its name, what it holds, the rooms (or single files of a room) it may import besides its own, space-separated. */
const room = (name: string, holds: string, may = '') => ({ room: name, holds, mayImport: may ? may.split(' ') : [] });

export const rooms: ReadonlyArray<ReturnType<typeof room>> = [
  room('catalog', 'the requirements, the document’s statements, the operations (data)'),
  room('schemas', 'JSON Schemas of every body, event and the configuration; one ajv', 'catalog'),
  room(
    'kit',
    'what a check author uses: the API client and its exchanges, checks, builders, the verdict',
    'catalog schemas',
  ),
  room(
    'reporters',
    'marks → verdicts → matrix, JUnit, Allure, console; the summary values they take',
    'catalog schemas kit',
  ),
  room(
    'runner',
    'configuration, global setup, preflight, doctor, broker, receiver and attribution, network',
    'catalog schemas kit reporters sandbox',
  ),
  room('fixtures', 'the Playwright fixtures the tests take', 'catalog schemas kit runner/worker.ts'),
  room('tests', 'the conformance checks', 'catalog schemas kit fixtures'),
  room('sandbox', 'the reference implementation, its flavors and faults', 'catalog schemas'),
  room('scripts', 'the commands of package.json', `${suite} examples`),
  room(
    'tools',
    'the workshop’s measurements of the suite: bench, load, mutation, the retry simulation, the build, the recorder of the check units’ inputs; never packed',
    `${suite} examples scripts`,
  ),
  room('selftest', 'the suite’s own tests and the proof', `${suite} scripts tools examples`),
  room('playwright.config.ts', 'the conformance run’s configuration', 'catalog schemas kit reporters runner fixtures'),
];

export function roomOf(path: string): string {
  const first = path.split('/')[0] ?? '';
  return rooms.some((r) => r.room === path) ? path : first;
}

/** The table as docs/architecture.md shows it, between its markers. */
export function roomTable(): string {
  const lines = ['| Room | Holds | May import |', '|---|---|---|'];
  for (const { room, holds, mayImport } of rooms)
    lines.push(
      `| \`${room}\` | ${holds} | ${mayImport.length ? mayImport.map((m) => `\`${m}\``).join(', ') : 'nothing'} |`,
    );
  return lines.join('\n');
}
