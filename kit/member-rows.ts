import { operation } from '../catalog/catalog.ts';
import type { Api } from './api.ts';
import { isObject } from '../schemas/json-value.ts';
import type { Exchange } from './http/exchange.ts';
import { accepted } from './http/consequence.ts';
import {
  fullAssessment,
  fullCaseUpdate,
  fullDocumentVerification,
  fullStepUp,
  type BodyContext,
  type CaseRef,
} from './builders/identity-bodies.ts';
import {
  notAnObjectRequirement,
  notAnObjectTitle,
  optionalMembers,
  requiredRows,
  requiredTitle,
  wrongTypeRows,
  wrongTypeTitle,
  type BodyOperation,
  type RequiredRow,
  type WrongTypeRow,
} from './builders/request-members.ts';
import type { SuiteConfig } from './config/suite-config.ts';
import type { Verdict } from './verdict.ts';
import { expectAccepted, expectRefused, expectSchema, observeAnswer } from './checks/responses.ts';
import type { RefusalMarkers } from './checks/nothing-changed.ts';
import { watchCase, type FetchCase } from './unchanged-case.ts';

/**
 * The member rows generated from a request's schema (part 2): each member missing, null or of another type, the body
 * no object, every optional member left out. Each row sends its variants and judges every answer by the registered
 * checks of kit/checks/ (expectRefused, expectAccepted, expectSchema, observeAnswer).
 */

/** What the member checks stand on: the test's fixtures. */
export interface MemberContext {
  api: Api;
  verdict: Verdict;
  config: SuiteConfig;
  data: BodyContext;
  /** A valid request of the operation, whose control was accepted in this test (fixture validRequest). */
  validBody: () => Promise<Record<string, unknown>>;
  existingCase: () => Promise<CaseRef>;
  /** The case as 4.5 returns it (fixture fetchCase): a refused case update must leave it as it was. */
  fetchCase: FetchCase;
}

interface Refusable {
  body: unknown;
  note: string;
  /** Members a refused case update carries so that a change it made anyway shows (nothing-changed.ts). */
  markers?: RefusalMarkers;
}

/**
 * Sends the variants of one request. Refused ones go at once: they stand on nothing but the valid request, so against
 * a slow target the check costs one round trip, not one per variant. Accepted updates of one case go one after the
 * other: the document does not say that a target takes concurrent updates of a case. Each answer is judged in the
 * order the variants are listed.
 */
async function sendAll(
  ctx: MemberContext,
  op: BodyOperation,
  variants: ReadonlyArray<{ body: unknown; note: string }>,
  judge: (exchange: Exchange) => void,
  options: { oneAtATime?: boolean } = {},
): Promise<void> {
  const send = ({ body, note }: { body: unknown; note: string }) => ctx.api.call(op, { body, note });
  const exchanges: Exchange[] = [];
  if (options.oneAtATime) for (const variant of variants) exchanges.push(await send(variant));
  else exchanges.push(...(await Promise.all(variants.map(send))));
  for (const exchange of exchanges) judge(exchange);
}

/**
 * What an accepted request of another member type is judged by: the requirement on the operation's answer, and for the
 * operations that act on a case, the case as fetched afterwards (its types are those of 2.2 whatever was sent).
 */
const judgedBy: Readonly<Record<BodyOperation, { answer: string; fetchedCase?: string }>> = {
  assessment: { answer: 'ASM-RES-SCHEMA', fetchedCase: 'ASM-RES-SCHEMA' },
  documentVerification: { answer: 'DOCV-RES-SCHEMA' },
  caseUpdate: { answer: 'CU-RES-SCHEMA', fetchedCase: 'ASM-RES-SCHEMA' },
  stepUp: { answer: 'SU-RES-SCHEMA', fetchedCase: 'ASM-RES-SCHEMA' },
};

/** The requirements a wrong-type check of the operation judges, besides the observed row itself. */
export function wrongTypeConsequences(op: BodyOperation): string[] {
  const { answer, fetchedCase } = judgedBy[op];
  return [...new Set([answer, ...(fetchedCase ? [fetchedCase] : [])])];
}

/** The case an answer of the operation is about: the one it created (assessment), or the one the request named. */
function caseIdOf(op: BodyOperation, sent: Record<string, unknown>, answer: unknown): string | undefined {
  const id =
    op === 'assessment' ? (isObject(answer) ? answer['authenticationId'] : undefined) : sent['authenticationId'];
  return typeof id === 'string' ? id : undefined;
}

/**
 * Sends the valid request once per wrong type of the row's member. The document states the types but no refusal, so
 * how each is answered is recorded; what is judged is the consequence: an accepted one is answered in the types of its
 * part, and the case it acts on is fetched in the types of 2.2 (a coerced 42 is a "42" there, never a number).
 */
export async function sendWrongTypes(ctx: MemberContext, row: WrongTypeRow): Promise<void> {
  const body = await ctx.validBody();
  const variants = row.variants.map((variant) => ({
    body: { ...body, [row.field]: variant.value },
    note: `${row.field} as ${variant.name}`,
  }));
  const taken: Array<{ sent: Record<string, unknown>; answer: unknown }> = [];
  const { verdict } = ctx;
  const responseSchema = operation(row.operation).responseSchema as string;
  await sendAll(ctx, row.operation, variants, (exchange) => {
    observeAnswer(verdict, row.requirement, exchange, exchange.note ?? row.field);
    if (!accepted(exchange)) return;
    expectSchema(verdict, judgedBy[row.operation].answer, responseSchema, exchange.json, exchange);
    taken.push({
      sent: JSON.parse(exchange.request.body ?? '{}') as Record<string, unknown>,
      answer: exchange.json,
    });
  });
  const fetchedCase = judgedBy[row.operation].fetchedCase;
  if (!fetchedCase) return;
  for (const { sent, answer } of taken) {
    const caseId = caseIdOf(row.operation, sent, answer);
    if (caseId === undefined) continue;
    const fetched = await ctx.api.call('fetchAssessment', {
      pathParams: { caseId },
      note: `the case after ${row.field} of another type was accepted`,
    });
    if (accepted(fetched))
      expectSchema(verdict, fetchedCase, operation('fetchAssessment').responseSchema as string, fetched.json, fetched);
  }
}

/**
 * Sends variants that must be refused, each judged by the row's requirement; on a case update, the existing case is
 * fetched before and after, and every refused variant must have left it as it was. Each variant is built from markers
 * of its own (fresh tags, another decision: none for operations that change no case), leaving out `leaveOut`.
 */
async function sendRefusals(
  ctx: MemberContext,
  op: BodyOperation,
  requirement: string,
  builds: ReadonlyArray<(markers: RefusalMarkers) => Refusable>,
  leaveOut: readonly string[] = [],
): Promise<void> {
  const watched = op === 'caseUpdate' ? await watchCase(ctx, await ctx.existingCase()) : undefined;
  const variants = builds.map((build) => build(watched ? watched.markers(leaveOut) : {}));
  const exchanges: Exchange[] = [];
  await sendAll(ctx, op, variants, (exchange) => {
    exchanges.push(exchange);
    expectRefused(ctx.verdict, requirement, exchange);
  });
  await watched?.judge(
    requirement,
    variants.map((v, i) => ({ exchange: exchanges[i] as Exchange, markers: v.markers ?? {} })),
  );
}

/** A required member missing, then null (a required member sent as null is a missing one): both refused. */
export async function sendRequired(ctx: MemberContext, row: RequiredRow): Promise<void> {
  const body = await ctx.validBody();
  const without = Object.fromEntries(Object.entries(body).filter(([name]) => name !== row.field));
  await sendRefusals(ctx, row.operation, row.requirement, [
    (markers) => ({ body: { ...without, ...markers }, note: `without ${row.field}`, markers }),
    (markers) => ({ body: { ...body, ...markers, [row.field]: null }, note: `${row.field} null`, markers }),
  ]);
}

/**
 * A body that is JSON but no object (null, an array holding the valid request, the valid request encoded once more as
 * a JSON string) carries none of the required members: each refused.
 */
export async function sendBodyNotAnObject(ctx: MemberContext, op: BodyOperation, requirement: string): Promise<void> {
  const body = await ctx.validBody();
  // Only the array can carry markers: a server taking its item as the request applies them.
  await sendRefusals(ctx, op, requirement, [
    () => ({ body: null, note: 'the body null' }),
    (markers) => ({ body: [{ ...body, ...markers }], note: 'the body an array holding the valid request', markers }),
    () => ({ body: JSON.stringify(body), note: 'the body the valid request as a JSON string' }),
  ]);
}

/**
 * The request with every member of its part, each one in its stated type (the reseller's sharedContext apart). A
 * step-up carries one channel: the email one when the phone number is the member left out.
 */
async function fullRequest(ctx: MemberContext, op: BodyOperation, leftOut?: string): Promise<Record<string, unknown>> {
  const { config, data } = ctx;
  switch (op) {
    case 'assessment':
      return fullAssessment(data, config.strategies.assessment);
    case 'documentVerification':
      return fullDocumentVerification(data, config.strategies.documentVerification);
    case 'caseUpdate':
      return fullCaseUpdate(data, await ctx.existingCase(), config.strategies.assessment);
    case 'stepUp':
      return fullStepUp(data, await ctx.existingCase(), leftOut === 'phoneNumber' ? 'email' : 'phone');
  }
}

/** The full request without one optional member at a time: each accepted (GEN-OPTIONAL-MEMBERS). */
export async function sendOptionalMembers(ctx: MemberContext, op: BodyOperation): Promise<void> {
  const variants: Array<{ body: Record<string, unknown>; note: string }> = [];
  // Built one after the other, so that the seeded data does not depend on timing; sent at once.
  for (const member of optionalMembers(op)) {
    variants.push({
      body: Object.fromEntries(Object.entries(await fullRequest(ctx, op, member)).filter(([name]) => name !== member)),
      note: `every member but ${member}`,
    });
  }
  // A case update and a step-up act on the one existing case.
  await sendAll(ctx, op, variants, (exchange) => expectAccepted(ctx.verdict, 'GEN-OPTIONAL-MEMBERS', exchange), {
    oneAtATime: op === 'caseUpdate' || op === 'stepUp',
  });
}

export { fullRequest };

/** One generated member check of an operation: the requirements it cites, its title, and how it runs. */
export interface MemberCheck {
  op: BodyOperation;
  ids: string[];
  title: string;
  run: (ctx: MemberContext) => Promise<void>;
}

/**
 * Every member check generated from the request schemas of these operations: every JSON type but the stated one on
 * every member, every required member missing or null, a body that is no object, every optional member left out.
 * The spec of each project declares them (test() is called there, so that each check's file is its project's).
 */
export function memberChecks(ops: readonly BodyOperation[]): MemberCheck[] {
  return ops.flatMap((op) => {
    const shapeRequirement = notAnObjectRequirement(op);
    return [
      ...wrongTypeRows(op).map((row) => ({
        op,
        ids: [row.requirement, ...wrongTypeConsequences(op)],
        title: wrongTypeTitle(row),
        run: (ctx: MemberContext) => sendWrongTypes(ctx, row),
      })),
      ...requiredRows(op).map((row) => ({
        op,
        ids: [row.requirement],
        title: requiredTitle(row),
        run: (ctx: MemberContext) => sendRequired(ctx, row),
      })),
      ...(shapeRequirement
        ? [
            {
              op,
              ids: [shapeRequirement],
              title: notAnObjectTitle(op),
              run: (ctx: MemberContext) => sendBodyNotAnObject(ctx, op, shapeRequirement),
            },
          ]
        : []),
      {
        op,
        ids: ['GEN-OPTIONAL-MEMBERS'],
        title: `${operation(op).noun} is accepted without any one of its optional members`,
        run: (ctx: MemberContext) => sendOptionalMembers(ctx, op),
      },
    ];
  });
}
