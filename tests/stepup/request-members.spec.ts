import { requiredRows, requiredTitle, wrongTypeRows, wrongTypeTitle } from '../../harness/builders/request-members.ts';
import { checkOptionalMembers, checkRequired, checkWrongTypes } from '../../harness/checks/request-members.ts';
import { operation } from '../../catalog/catalog.ts';
import { cites, test } from '../../fixtures/test.ts';

// Generated from the request schemas of 2.6 (harness/builders/request-members.ts): every JSON type but the
// stated one on every member, every required member missing or null, every optional member left out.
for (const op of ['stepUp'] as const) {
  for (const row of wrongTypeRows(op)) test(...cites([row.requirement], wrongTypeTitle(row), { on: op }), ({ members }) => checkWrongTypes(members(op), row));
  for (const row of requiredRows(op)) test(...cites([row.requirement], requiredTitle(row), { on: op }), ({ members }) => checkRequired(members(op), row));
  test(...cites(['GEN-OPTIONAL-MEMBERS'], `${operation(op).noun} is accepted without any one of its optional members`, { on: op }), ({ members }) => checkOptionalMembers(members(op), op));
}
