import type { Faker } from '@faker-js/faker';

/** A name tagged with the run, so that neither an earlier run nor the portal can have created it (a tag, a queue, an agent). */
export function freshName(prefix: string, { faker, runTag }: { faker: Faker; runTag: string }): string {
  return `${prefix}-${runTag}-${faker.string.alphanumeric({ length: 8, casing: 'lower' })}`;
}
