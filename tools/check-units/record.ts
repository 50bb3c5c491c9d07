import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isObject } from '../../schemas/json-value.ts';
import { freePort } from '../../runner/http/free-port.ts';
import type { ScenarioStep } from '../../scripts/client/judge.ts';
import { openCertification } from '../../scripts/client/session.ts';

/**
 * Records the exchanges the check units (selftest/check-units/) are built from, redacted, into
 * selftest/check-units/recorded/. The server's: a conformance run against the embedded reference sandbox, whose
 * tests attach their exchanges and deliveries redacted (fixtures/test.ts, fixtures/webhooks.ts); the picks below take
 * one from the test named. The client's: certifications of the example reseller client (scripts/client/session.ts),
 * clean and with its faults (CLIENT_FAULT), each token and API key replaced by a stand-in the units' target knows.
 * Run by hand when a check's input changes: `node --import tsx tools/check-units/record.ts`.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, 'selftest', 'check-units', 'recorded');

/**
 * One exchange a unit stands on: the first (or last) of the test's exchanges with this label, a status in the range
 * and, when given, this note; recorded against the reference sandbox, or against it with one fault (sandbox/faults.ts).
 */
interface Pick {
  test: string;
  label: string;
  status: [number, number];
  note?: string;
  last?: boolean;
  fault?: string;
}

const TAG_CLASSES =
  'tags of every class of value, an update per class, then two updates of 20 to 50 tags: the case shows every tag of every accepted update, more than a hundred, each as sent';

const picks: Record<string, Pick> = {
  tokenIssued: {
    test: 'the identity token endpoint issues a token for the valid request of 4.1',
    label: 'token',
    status: [200, 200],
  },
  tokenRefusedClient: {
    test: 'the identity token endpoint refuses Basic with an unknown client id and secret',
    label: 'token',
    status: [401, 401],
  },
  bearerRefused: { test: 'assessment refuses an unknown token (random)', label: 'assessment', status: [401, 401] },
  assessed: {
    test: 'new tags of two updates, several each, are all appended to the case, the earlier tags kept',
    label: 'assessment',
    status: [200, 299],
  },
  caseUpdated: {
    test: 'new tags of two updates, several each, are all appended to the case, the earlier tags kept',
    label: 'caseUpdate',
    status: [200, 299],
  },
  caseFetched: {
    test: 'new tags of two updates, several each, are all appended to the case, the earlier tags kept',
    label: 'fetchAssessment',
    status: [200, 299],
    last: true,
  },
  tagsNfd: { test: TAG_CLASSES, label: 'caseUpdate', status: [200, 299], note: 'tags: latin-nfd' },
  tagsSpaced: { test: TAG_CLASSES, label: 'caseUpdate', status: [200, 299], note: 'tags: outer-spaces' },
  tagsFetched: { test: TAG_CLASSES, label: 'fetchAssessment', status: [200, 299], last: true },
  idNfd: {
    test: 'an inquiryId of each path-safe class of value comes back byte for byte: in the assessment answer, in the case fetched by its identifier and in the document verification answer',
    label: 'assessment',
    status: [200, 299],
    note: 'inquiryId: latin-nfd',
  },
  nearMissFetched: {
    test: 'fetching a case identifier near a real one does not show that case: the real id with "0" appended',
    label: 'fetchAssessment',
    status: [400, 499],
  },
  requiredMissing: {
    test: 'an assessment without inquiryId, or with inquiryId null, is refused',
    label: 'assessment',
    status: [400, 499],
  },
  recordsFetched: { test: 'document records are fetched without data', label: 'documentRecords', status: [200, 299] },
  documentVerified: {
    test: 'a document verification for a new inquiry is reported by events tied to its inquiry and session',
    label: 'documentVerification',
    status: [200, 299],
  },
  orderCreated: {
    test: 'an allowed fulfillment type is not a validation error: SHIPPED',
    label: 'createOrder',
    status: [200, 299],
  },
  orderDuplicate: {
    test: 'creating an order whose identifier already exists is answered 409 client',
    label: 'createOrder',
    status: [409, 409],
  },
  tokenIssuedWithoutNoStore: {
    test: 'the identity token endpoint issues a token for the valid request of 4.1',
    label: 'token',
    status: [200, 200],
    fault: 'token-no-cache-control',
  },
  bearerRefusedWithoutChallenge: {
    test: 'assessment refuses an unknown token (random)',
    label: 'assessment',
    status: [401, 401],
    fault: 'bearer-no-challenge-on-assessment',
  },
  orderDuplicateAs400: {
    test: 'creating an order whose identifier already exists is answered 409 client',
    label: 'createOrder',
    status: [400, 400],
    fault: 'order-duplicate-400',
  },
  orderValidation: {
    test: 'a fulfillment type outside the allowed list is answered 400 validation: near miss "SHIPPING"',
    label: 'createOrder',
    status: [400, 400],
  },
};

const DOCUMENT_EVENTS = {
  test: 'a document verification for a new inquiry is reported by events tied to its inquiry and session',
  attachment: 'document events after the document verification for a new inquiry',
};

/** The deliveries a unit stands on: the test's attachment of that name, recorded as a Pick is. */
const deliveryPicks: Record<string, { test: string; attachment: string; fault?: string }> = {
  documentEvents: DOCUMENT_EVENTS,
  documentEventsTextPlain: { ...DOCUMENT_EVENTS, fault: 'webhook-text-plain-on-results' },
  documentEventsWrongInquiry: { ...DOCUMENT_EVENTS, fault: 'webhook-results-wrong-inquiry' },
};

/** The client faults recorded, each a traffic of its own: a group of the faults selftest/client-certification.spec.ts runs together. */
const clientRuns: Record<string, string> = {
  clean: '',
  'faults-a': 'retry-storm,webhook-500,child-id-leak,no-bearer,body-text-plain',
  'faults-b': 'one-correlation-id,no-retry,webhook-strict,one-child,made-up-authentication-id,no-shared-context',
  'faults-c': 'webhook-text,shared-get-correlation-id,no-source-client-id,no-client-id,decision-lowercase',
};

function run(command: string, args: string[], env: Record<string, string>): Promise<number | null> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env });
    child.on('close', done);
  });
}

/** The environment of a child run: this one's, without the settings a developer's shell may carry. */
function childEnv(extra: Record<string, string>): Record<string, string> {
  // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
  const inherited = Object.entries(process.env).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && !/^(SANDBOX_|WEBHOOK_|CLIENT_FAULT)/.test(entry[0]),
  );
  return { ...Object.fromEntries(inherited), ...extra };
}

interface Attachment {
  name: string;
  body?: string;
}
interface Suite {
  specs?: Array<{ title: string; tests: Array<{ results: Array<{ attachments?: Attachment[] }> }> }>;
  suites?: Suite[];
}

/** Every test's attachments by its title, from Playwright's JSON report. */
function attachmentsByTest(report: { suites: Suite[] }): Map<string, Map<string, unknown>> {
  const found = new Map<string, Map<string, unknown>>();
  const walk = (suite: Suite): void => {
    for (const spec of suite.specs ?? [])
      for (const attachment of spec.tests.flatMap((t) => t.results).flatMap((r) => r.attachments ?? [])) {
        if (attachment.body === undefined) continue;
        const value: unknown = JSON.parse(Buffer.from(attachment.body, 'base64').toString('utf8'));
        const name = attachment.name.startsWith('exchanges (') ? 'exchanges' : attachment.name;
        found.set(spec.title, (found.get(spec.title) ?? new Map()).set(name, value));
      }
    for (const inner of suite.suites ?? []) walk(inner);
  };
  report.suites.forEach(walk);
  return found;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The attachments of the tests named, from a conformance run against the reference sandbox with `fault` (or none). */
async function conformanceRun(fault: string | undefined, tests: readonly string[]) {
  const work = mkdtempSync(join(tmpdir(), 'check-units-'));
  try {
    writeFileSync(join(work, 'empty.env'), '');
    const grep = [...new Set(tests)].map(escaped).join('|');
    const code = await run(process.execPath, ['bin/identity-proofing-conformance.js', 'run', '--grep', grep], {
      ...childEnv({
        ENV_FILE: join(work, 'empty.env'),
        REPORTS_DIR: join(work, 'reports'),
        TEST_RESULTS_DIR: join(work, 'test-results'),
        ALLURE_RESULTS_DIR: join(work, 'allure-results'),
        SANDBOX_PORT: String(await freePort()),
        WEBHOOK_LISTEN: `127.0.0.1:${await freePort()}`,
        // A faulted flow's event may never come: its wait is cut short, the recording needs only what came.
        ...(fault ? { SANDBOX_FAULTS: fault, WEBHOOK_WAIT_MS: '3000' } : {}),
      }),
    });
    // A fault fails the checks that catch it (exit 1); anything else is a run that did not happen.
    if (code !== 0 && !(fault && code === 1))
      throw new Error(`the conformance run against the sandbox${fault ? ` with ${fault}` : ''} ended with ${code}`);
    return attachmentsByTest(JSON.parse(readFileSync(join(work, 'reports', 'results.json'), 'utf8')));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function recordServer(): Promise<void> {
  const faults = [...new Set([...Object.values(picks), ...Object.values(deliveryPicks)].map((p) => p.fault))];
  const runs = new Map<string | undefined, Awaited<ReturnType<typeof conformanceRun>>>();
  for (const fault of faults) {
    const tests = [...Object.values(picks), ...Object.values(deliveryPicks)].filter((p) => p.fault === fault);
    runs.set(
      fault,
      await conformanceRun(
        fault,
        tests.map((p) => p.test),
      ),
    );
  }
  const exchanges = Object.fromEntries(
    Object.entries(picks).map(([key, pick]) => {
      const list = (runs.get(pick.fault)?.get(pick.test)?.get('exchanges') ?? []) as Array<Record<string, unknown>>;
      const found = (pick.last ? [...list].reverse() : list).find((e) => {
        const status = (e['response'] as { status: number }).status;
        return (
          e['label'] === pick.label &&
          status >= pick.status[0] &&
          status <= pick.status[1] &&
          (pick.note === undefined || e['note'] === pick.note)
        );
      });
      if (!found)
        throw new Error(`${key}: no ${pick.label} exchange answered ${pick.status.join('-')} in "${pick.test}"`);
      return [key, { ...(pick.fault ? { fault: pick.fault } : {}), ...found }];
    }),
  );
  const deliveries = Object.fromEntries(
    Object.entries(deliveryPicks).map(([key, pick]) => {
      const found = runs.get(pick.fault)?.get(pick.test)?.get(pick.attachment);
      if (!Array.isArray(found)) throw new Error(`${key}: no attachment "${pick.attachment}" in "${pick.test}"`);
      return [key, found];
    }),
  );
  write('server.json', {
    recordedWith: 'npm run conformance against the reference sandbox, and with each fault named',
    deliveryFaults: Object.fromEntries(
      Object.entries(deliveryPicks)
        .filter(([, pick]) => pick.fault)
        .map(([key, pick]) => [key, pick.fault]),
    ),
    exchanges,
    deliveries,
  });
}

async function recordClient(name: string, faults: string): Promise<void> {
  const scenario = (
    JSON.parse(readFileSync(join(root, 'examples', 'reseller-client', 'scenario.json'), 'utf8')) as {
      steps: ScenarioStep[];
    }
  ).steps;
  const issued: string[] = [];
  const certification = await openCertification({
    flavor: 'reference',
    inject503: 1,
    webhooks: true,
    scenario,
    onTokenIssued: (token) => issued.push(token),
  });
  await run(process.execPath, ['--import', 'tsx', 'examples/reseller-client/client.ts'], {
    ...childEnv({ ...certification.env, ...(faults ? { CLIENT_FAULT: faults } : {}) }),
  });
  const { traffic } = await certification.finish();
  const { target } = traffic;
  // Each secret becomes a stand-in wherever the traffic carries it: the API keys, and every token issued.
  const standIns = new Map<string, string>([
    ...target.apiKeys.map((key, i): [string, string] => [key, `[api-key-${i + 1}]`]),
    ...issued.map((token, i): [string, string] => [token, `[token-${i + 1}]`]),
  ]);
  const hide = (text: string) => [...standIns].reduce((t, [secret, standIn]) => t.split(secret).join(standIn), text);
  const tokens = Object.fromEntries(
    [...standIns]
      .filter(([, standIn]) => standIn.startsWith('[token-'))
      .map(([token, standIn]) => [
        standIn,
        { identity: target.checkToken(token, 'identity'), stepup: target.checkToken(token, 'stepup') },
      ]),
  );
  const cases: Record<string, string> = {};
  for (const exchange of traffic.exchanges)
    for (const value of stringsOf(exchange)) {
      const found = target.caseOf(value);
      if (found) cases[value] = found.inquiryId;
    }
  const { caseOf: _caseOf, checkToken: _checkToken, ...facts } = target;
  write(`client-${name}.json`, {
    recordedWith: `the example reseller client under certify-client${faults ? `, CLIENT_FAULT=${faults}` : ''}`,
    target: { ...facts, apiKeys: facts.apiKeys.map(hide), cases, tokens },
    scenario,
    exchanges: traffic.exchanges.map((e) => ({
      ...e,
      url: hide(e.url),
      rawHeaders: e.rawHeaders.map(hide),
      body: hide(e.body.toString('utf8')),
    })),
    deliveries: traffic.deliveries.map((d) => ({ ...d, body: hide(d.body) })),
  });
}

/** Every string a request names: its path's segments and the strings of its JSON body. */
function stringsOf(exchange: { url: string; body: Buffer }): string[] {
  const found = exchange.url.split('?')[0]?.split('/').map(decodeURIComponent) ?? [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') found.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (isObject(value)) Object.values(value).forEach(walk);
  };
  try {
    walk(JSON.parse(exchange.body.toString('utf8')));
  } catch {
    // A body that is not JSON names no case.
  }
  return found;
}

/** A recording as JSON, an exchange (or a test's deliveries) a line, so that a diff shows which one changed. */
function recordingText(value: Record<string, unknown>): string {
  const line = (v: unknown) => JSON.stringify(v);
  const members = Object.entries(value).map(([key, v]) => {
    if (Array.isArray(v)) return `  ${line(key)}: [\n${v.map((item) => `    ${line(item)}`).join(',\n')}\n  ]`;
    if (isObject(v) && Object.values(v).every((item) => isObject(item) || Array.isArray(item)))
      return `  ${line(key)}: {\n${Object.entries(v)
        .map(([name, item]) => `    ${line(name)}: ${line(item)}`)
        .join(',\n')}\n  }`;
    return `  ${line(key)}: ${line(v)}`;
  });
  return `{\n${members.join(',\n')}\n}\n`;
}

function write(file: string, value: Record<string, unknown>): void {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, file), recordingText(value));
  console.log(`wrote selftest/check-units/recorded/${file}`);
}

await recordServer();
for (const [name, faults] of Object.entries(clientRuns)) await recordClient(name, faults);
