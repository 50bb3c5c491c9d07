import type { Api } from '../api.ts';
import { fullAssessment, fullCaseUpdate, fullDocumentVerification, fullStepUp, type BodyContext, type CaseRef } from '../builders/identity-bodies.ts';
import { optionalMembers, type BodyOperation, type RequiredRow, type WrongTypeRow } from '../builders/request-members.ts';
import type { SuiteConfig } from '../config/load-config.ts';
import type { Verdict } from '../verdict.ts';
import { expectAccepted, expectRefused } from './responses.ts';

/** What the member checks stand on: the test's fixtures. */
export interface MemberContext {
  api: Api;
  verdict: Verdict;
  config: SuiteConfig;
  data: BodyContext;
  /** A valid request of the operation, whose control was accepted in this test (fixture validRequest). */
  validBody: () => Promise<Record<string, unknown>>;
  existingCase: () => Promise<CaseRef>;
}

/** Sends the valid request once per wrong type of the row's member; each must be refused. */
export async function checkWrongTypes(ctx: MemberContext, row: WrongTypeRow): Promise<void> {
  const body = await ctx.validBody();
  for (const variant of row.variants) {
    const exchange = await ctx.api.call(row.operation, { body: { ...body, [row.field]: variant.value }, note: `${row.field} as ${variant.name}` });
    expectRefused(ctx.verdict, row.requirement, exchange);
  }
}

/** A required member missing, then null (a required member sent as null is a missing one): both refused. */
export async function checkRequired(ctx: MemberContext, row: RequiredRow): Promise<void> {
  const body = await ctx.validBody();
  const without = Object.fromEntries(Object.entries(body).filter(([name]) => name !== row.field));
  for (const [sent, note] of [[without, `without ${row.field}`], [{ ...body, [row.field]: null }, `${row.field} null`]] as const) {
    const exchange = await ctx.api.call(row.operation, { body: sent, note });
    expectRefused(ctx.verdict, row.requirement, exchange);
  }
}

/** The request with every member of its part, each one in its stated type (the reseller's sharedContext apart). */
async function fullRequest(ctx: MemberContext, op: BodyOperation): Promise<Record<string, unknown>> {
  const { config, data } = ctx;
  switch (op) {
    case 'assessment':
      return fullAssessment(data, config.strategies.assessment);
    case 'documentVerification':
      return fullDocumentVerification(data, config.strategies.documentVerification);
    case 'caseUpdate':
      return fullCaseUpdate(data, await ctx.existingCase(), config.strategies.assessment);
    case 'stepUp':
      return fullStepUp(data, await ctx.existingCase());
  }
}

/** The full request without one optional member at a time: each accepted (GEN-OPTIONAL-MEMBERS). */
export async function checkOptionalMembers(ctx: MemberContext, op: BodyOperation): Promise<void> {
  for (const member of optionalMembers(op)) {
    const body = Object.fromEntries(Object.entries(await fullRequest(ctx, op)).filter(([name]) => name !== member));
    const exchange = await ctx.api.call(op, { body, note: `every member but ${member}` });
    expectAccepted(ctx.verdict, 'GEN-OPTIONAL-MEMBERS', exchange);
  }
}

export { fullRequest };
