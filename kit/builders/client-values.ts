import type { Faker } from '@faker-js/faker';
import { freshName } from './fresh-names.ts';

/** What the values are drawn with: the test's seeded faker and the run tag (a BodyContext is one). */
type BodyContext = { faker: Faker; runTag: string };

/**
 * The values a real integration puts in the members whose type the document shows (2.1, 2.3, 2.5, 2.6), drawn by the
 * test's seeded faker: the same SEED and RUN_TAG give the same values, creationDateTime apart (the time the request is
 * made). Recipients are never real: emails on the domains RFC 2606 reserves, phone numbers in the range the North
 * American Numbering Plan keeps for fiction (555-0100 to 555-0199). Values a check needs to find again (tags) keep the
 * run tag, so that no earlier run and no portal user can have made them. Members the document does not detail come
 * from the *_TEMPLATE files only (undetailedMember), never from here.
 */

/** The reserved example domains faker's exampleEmail draws from (RFC 2606 section 3). */
export const EXAMPLE_EMAIL_DOMAINS: readonly string[] = ['example.com', 'example.net', 'example.org'];

/** +1 NPA 555 01XX: the fictional numbers of the North American Numbering Plan, in E.164. */
export const FICTIONAL_PHONE = /^\+1[2-9]\d{2}55501\d{2}$/;

/** A tag as a case-management integration writes one ("expedited-payment"), tagged with the run. */
export function clientTag(ctx: BodyContext): string {
  return freshName(
    `${ctx.faker.word.adjective()}-${ctx.faker.word.noun()}`.toLowerCase().replace(/[^a-z0-9-]/g, ''),
    ctx,
  );
}

/** Several tags, as one update of a real case carries them (two to four). */
export function clientTags(ctx: BodyContext): string[] {
  return Array.from({ length: ctx.faker.number.int({ min: 2, max: 4 }) }, () => clientTag(ctx));
}

export const clientValues = {
  notes: ({ faker }: BodyContext) => `${faker.lorem.sentence()} ${faker.lorem.sentence()}`,
  externalAgent: ({ faker }: BodyContext) => `${faker.person.firstName()}.${faker.person.lastName()}`.toLowerCase(),
  channel: ({ faker }: BodyContext) => faker.helpers.arrayElement(['web', 'ios-app', 'android-app', 'call-center']),
  /** Dotted decimal, as 2.1 states. */
  userIp: ({ faker }: BodyContext) => faker.internet.ipv4(),
  deviceSessionId: ({ faker }: BodyContext) => faker.string.uuid(),
  /** The time the request is made: the one member whose value differs between two runs of one seed. */
  creationDateTime: () => new Date().toISOString(),
  email: ({ faker }: BodyContext) => faker.internet.exampleEmail(),
  phoneNumber: ({ faker }: BodyContext) =>
    `+1${faker.number.int({ min: 2, max: 9 })}${faker.string.numeric(2)}55501${faker.string.numeric(2)}`,
} as const;

/**
 * The request members whose value two runs of one SEED and RUN_TAG do not share (docs/traffic.md): the time a request
 * is made, and the case identifier the target issued, which the suite sends back.
 */
export const RUN_VARYING_MEMBERS: readonly string[] = ['creationDateTime', 'authenticationId'];
