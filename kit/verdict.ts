import type { TestInfo } from '@playwright/test';
import { requirement, type Requirement } from '../catalog/catalog.ts';
import type { Redactor } from './redact.ts';
import { evidenceLines, type Evidence, type Findings } from './findings.ts';
import { describeAnswer, describeSent, type Exchange } from './http/exchange.ts';
import { settingsNamedIn } from '../schemas/variables.ts';
import { NOT_TRIED, TestMarks, warningsFail, type Profile } from './verdict-marks.ts';

/**
 * The first failure of a precondition the run's checks share (kit/shared-preconditions.ts): what broke, with its
 * evidence (redacted), and the test that met it.
 */
export interface FailedPrecondition {
  what: string;
  evidence: Evidence;
  /** The test that met it ("file › title"), when a test did (the run's token is fetched by the runner). */
  by?: string;
}

/**
 * One or more MUST requirements (or, under the certify-strict profile, SHOULD ones) were violated. Its evidence is the
 * requirement, Sent, Expected and Actual: the stack of the suite's own code would only bury it, so it carries none.
 */
export class RequirementFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequirementFailure';
    this.stack = `${this.name}: ${message}`;
  }
}

/** The target prevented a check: a precondition failed, a control request was refused, an event never came. */
export class PreconditionFailure extends Error {
  constructor(
    message: string,
    /** The precondition had failed before it was asked for (a shared one, kit/shared-preconditions.ts): not tried. */
    readonly notTried = false,
  ) {
    super(message);
    this.name = 'PreconditionFailure';
    this.stack = `${this.name}: ${message}`;
  }
}

/** How a test ends when a check fails: at its end with every failure (the default), or never (self-tests' proof run). */
export type FailurePolicy = 'fail-at-end' | 'record-only';

export function formatFailure(req: Requirement, evidence: Evidence): string {
  const basis = req.rfc ? `part ${req.part}; ${req.rfc}` : `part ${req.part}`;
  return [`${req.id} (${req.level}, ${basis}): ${req.statement}`, ...evidenceLines(evidence)].join('\n');
}

/** The longest detail a mark carries; the full text is in the test's error. */
const MARK_DETAIL_MAX = 4_000;
const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** A blocked mark's detail: what blocked the test, and the first line of what came back. */
const blockedDetail = (what: string, evidence: Evidence) =>
  `${what}; got ${shorten(evidence.actual.split('\n')[0] ?? '', 160)}`;

/** A failure's mark: its message without the requirement's line (the reports show it), the evidence unindented. */
function markDetail(message: string): string {
  // Line breaks kept: the replay command in it must paste into a shell as it is.
  const lines = message.split('\n').slice(1);
  return shorten(lines.map((line) => line.replace(/^ {2}/, '')).join('\n'), MARK_DETAIL_MAX);
}

/**
 * Records, for one test, the outcome of each requirement it cites. A check may only name a requirement the test
 * cites. Every check runs: MUST failures are collected and the test fails at its end with all of them (SHOULD ones
 * too under the certify-strict profile); INFO requirements are only observed. When the target prevents a check, the test
 * stops as blocked; when the configuration leaves a check out, it is skipped as not configured.
 */
export class Verdict implements Findings {
  private readonly failures: string[] = [];
  private readonly warnings: string[] = [];
  private readonly marks: TestMarks;
  private ended = false;
  /** What blocked the test, once it is blocked: what a shared precondition remembers of its failure. */
  blockedBy?: { what: string; evidence: Evidence };

  constructor(
    private readonly testInfo: TestInfo,
    private readonly profile: Profile,
    private readonly redactor: Redactor,
    private readonly policy: FailurePolicy = 'fail-at-end',
  ) {
    this.marks = new TestMarks(testInfo.annotations);
  }

  /** "METHOD url (note)" of an exchange, redacted, for evidence. */
  sent(exchange: Exchange): string {
    return describeSent(exchange, this.redactor);
  }

  /** Status, media type and body of an answer, redacted, for evidence. */
  answer(exchange: Exchange): string {
    return describeAnswer(exchange, this.redactor);
  }

  /** A JSON value with secrets (token fields, registered values) removed, for evidence. */
  redacted(value: unknown): string {
    return JSON.stringify(this.redactor.json(value)) ?? String(value);
  }

  get cited(): string[] {
    return this.marks.cited;
  }

  /** Cites a requirement while the test runs: for monitors that judge whatever passes by (the orders envelope rules). */
  cite(id: string): void {
    this.marks.cite(id);
  }

  /** Returns whether the check passed. A failed MUST fails the test at its end, after every other check has run. */
  check(id: string, ok: boolean, evidence: () => Evidence): boolean {
    const req = this.marks.citedRequirement(id);
    if (req.level === 'INFO') throw new Error(`${id} is INFO: observe it, do not check it`);
    if (ok) {
      this.marks.add('pass', id, '');
      return true;
    }
    const message = this.redactor.text(formatFailure(req, evidence()));
    this.marks.add(req.level === 'MUST' ? 'fail' : 'warn', id, markDetail(message));
    (req.level === 'MUST' ? this.failures : this.warnings).push(message);
    return false;
  }

  observe(id: string, observation: string): void {
    const req = requirement(id);
    if (req.level !== 'INFO') throw new Error(`${id} is ${req.level}: check it, do not only observe it`);
    this.marks.add('observed', id, this.redactor.text(observation));
  }

  /**
   * The configuration leaves these requirements out (no expired token, no reseller): the test is skipped. The reason
   * names the variable that would configure them (schemas/config.schema.json), which every report shows beside the row.
   */
  notConfigured(reason: string, ids: readonly string[] = this.cited): never {
    if (settingsNamedIn(reason).length === 0)
      throw new Error(
        `Not configured without a variable: "${reason}" names none of schemas/config.schema.json; name the variable that would configure it`,
      );
    for (const id of ids) this.marks.add('not-configured', this.marks.citedRequirement(id).id, reason);
    this.ended = true;
    this.testInfo.skip(true, `not configured: ${reason}`);
    throw new Error('unreachable: testInfo.skip throws');
  }

  /**
   * These requirements could not be judged in this test: they read "not exercised" (which certify fails on) and the
   * test goes on. When the target simply never produced what they judge and nothing required it to, use notProduced.
   */
  nothingToJudge(ids: readonly string[], reason: string): void {
    for (const id of ids)
      this.marks.add('not-exercised', this.marks.citedRequirement(id).id, this.redactor.text(reason));
  }

  /**
   * The target never produced what this requirement judges, and nothing required it to (an event it had no reason to
   * send, a field without a documented default left out): the requirement reads "not exercised: the target never
   * produced it", is listed, and does not fail certification. The test goes on.
   */
  notProduced(id: string, detail: string): void {
    this.marks.add('not-produced', this.marks.citedRequirement(id).id, this.redactor.text(detail));
  }

  /**
   * The target prevented these requirements from being checked (by default every cited one): the test stops, and each
   * requirement reads blocked. Blocked is a failure of the gate, decided from these marks by the conformance reporter
   * (which also writes JUnit): the test itself is ended as skipped, since Playwright restarts its worker after every
   * failed test and a broken precondition would otherwise cost a worker start per test. A test that had already found a
   * failure fails with it.
   */
  blocked(what: string, evidence: Evidence, ids: readonly string[] = this.cited): never {
    this.blockedBy = { what: this.redactor.text(what), evidence: this.redactedEvidence(evidence) };
    return this.stop(blockedDetail(what, evidence), [`Blocked: ${what}`, ...evidenceLines(evidence)], ids);
  }

  /**
   * A precondition this test stands on had already failed for an earlier check of the run (the same key,
   * kit/shared-preconditions.ts): the test is blocked at once with that failure's words and evidence, marked not tried,
   * without waiting for it again. Blocked all the same: a failure of the gate.
   */
  notTried(failure: FailedPrecondition, ids: readonly string[] = this.cited): never {
    const first = failure.by ? `for ${failure.by}` : 'before this test asked for it';
    return this.stop(
      `${NOT_TRIED}${blockedDetail(failure.what, failure.evidence)}`,
      [
        `Blocked, not tried: ${failure.what}`,
        `  It failed ${first}, and is not waited for again; the evidence of that failure:`,
        ...evidenceLines(failure.evidence),
      ],
      ids,
    );
  }

  private stop(detail: string, lines: readonly string[], ids: readonly string[]): never {
    const shown = this.redactor.text(detail);
    for (const id of ids) this.marks.add('blocked', this.marks.citedRequirement(id).id, shown);
    this.ended = true;
    if (this.failures.length === 0 || this.policy === 'record-only') this.testInfo.skip(true, `blocked: ${shown}`);
    const message = this.redactor.text(lines.join('\n'));
    throw new PreconditionFailure([message, ...this.failures].join('\n\n'));
  }

  private redactedEvidence(evidence: Evidence): Evidence {
    return {
      ...(evidence.sent === undefined ? {} : { sent: this.redactor.text(evidence.sent) }),
      expected: this.redactor.text(evidence.expected),
      actual: this.redactor.text(evidence.actual),
      ...(evidence.details ? { details: evidence.details.map((d) => this.redactor.text(d)) } : {}),
    };
  }

  /** Marks requirements blocked without ending the test (an expected event of one kind never came); fails it at its end when one is a MUST. */
  blockedWithoutStopping(ids: readonly string[], what: string): void {
    for (const id of ids) {
      const req = this.marks.citedRequirement(id);
      this.marks.add('blocked', id, this.redactor.text(what));
      if (req.level === 'MUST' || (warningsFail(this.profile) && req.level === 'SHOULD'))
        this.failures.push(`Blocked: ${id}: ${this.redactor.text(what)}`);
    }
  }

  /** Something the checks stand on but do not verify; when it does not hold, the test stops as blocked. */
  precondition(ok: boolean, what: string, evidence: () => Evidence): void {
    if (!ok) this.blocked(what, evidence());
  }

  /** Ends the test: it fails with every MUST failure it collected (and SHOULD warnings under certify-strict). */
  finish(): void {
    if (this.ended || this.policy === 'record-only') return;
    const failures = warningsFail(this.profile) ? [...this.failures, ...this.warnings] : this.failures;
    if (failures.length === 0) return;
    const heading = failures.length === 1 ? '' : `${failures.length} requirement checks failed in this test:\n\n`;
    throw new RequirementFailure(`${heading}${failures.join('\n\n')}`);
  }
}
