// The rooms of the repository and what each may import: selftest/layering.spec.ts holds the tree to this table, and
// docs/architecture.md shows it (selftest/docs-current.spec.ts checks that it does).

export interface Room {
  room: string;
  holds: string;
  /** Rooms, or single files of a room, this room's modules may import besides its own. */
  mayImport: readonly string[];
}

export const rooms: readonly Room[] = [
  { room: 'catalog', holds: 'the requirements, the document’s statements, the operations (data)', mayImport: [] },
  {
    room: 'schemas',
    holds: 'JSON Schemas of every body, event and the configuration; one ajv',
    mayImport: ['catalog'],
  },
  {
    room: 'kit',
    holds: 'what a check author uses: the API client and its exchanges, checks, builders, the verdict',
    mayImport: ['catalog', 'schemas'],
  },
  {
    room: 'reporters',
    holds: 'marks → verdicts → matrix, JUnit, Allure, console; the summary values they take',
    mayImport: ['catalog', 'schemas', 'kit'],
  },
  {
    room: 'runner',
    holds: 'configuration, global setup, preflight, doctor, broker, receiver and attribution, network',
    mayImport: ['catalog', 'schemas', 'kit', 'reporters', 'sandbox'],
  },
  {
    room: 'fixtures',
    holds: 'the Playwright fixtures the tests take',
    mayImport: ['catalog', 'schemas', 'kit', 'runner/worker.ts'],
  },
  { room: 'tests', holds: 'the conformance checks', mayImport: ['catalog', 'schemas', 'kit', 'fixtures'] },
  { room: 'sandbox', holds: 'the reference implementation, its flavors and faults', mayImport: ['catalog', 'schemas'] },
  {
    room: 'scripts',
    holds: 'the commands of package.json',
    mayImport: ['catalog', 'schemas', 'kit', 'reporters', 'runner', 'fixtures', 'tests', 'sandbox', 'examples'],
  },
  {
    room: 'tools',
    holds:
      'the workshop’s measurements of the suite: bench, load, mutation, the retry simulation, the build, the recorder of the check units’ inputs; never packed',
    mayImport: [
      'catalog',
      'schemas',
      'kit',
      'reporters',
      'runner',
      'fixtures',
      'tests',
      'sandbox',
      'examples',
      'scripts',
    ],
  },
  {
    room: 'selftest',
    holds: 'the suite’s own tests and the proof',
    mayImport: [
      'catalog',
      'schemas',
      'kit',
      'reporters',
      'runner',
      'fixtures',
      'tests',
      'sandbox',
      'scripts',
      'tools',
      'examples',
    ],
  },
  {
    room: 'playwright.config.ts',
    holds: 'the conformance run’s configuration',
    mayImport: ['catalog', 'schemas', 'kit', 'reporters', 'runner', 'fixtures'],
  },
];

/** Crossings the table does not allow yet, each with why it still stands; none is added without a reason. */
export const pending: Record<string, string> = {};

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
