import {
  notAnObjectRequirement,
  notAnObjectTitle,
  requiredRows,
  requiredTitle,
  wrongTypeRows,
  wrongTypeTitle,
} from '../../kit/builders/request-members.ts';
import {
  checkBodyNotAnObject,
  checkOptionalMembers,
  checkRequired,
  checkWrongTypes,
  wrongTypeConsequences,
} from '../../kit/checks/request-members.ts';
import { operation } from '../../catalog/catalog.ts';
import { cites, test } from '../../fixtures/test.ts';

// Generated from the request schemas of 2.6 (kit/builders/request-members.ts): every JSON type but the
// stated one on every member, every required member missing or null, a body that is no object, every optional member
// left out.
for (const op of ['stepUp'] as const) {
  for (const row of wrongTypeRows(op))
    test(...cites([row.requirement, ...wrongTypeConsequences(op)], wrongTypeTitle(row), { on: op }), ({ members }) =>
      checkWrongTypes(members(op), row),
    );
  for (const row of requiredRows(op))
    test(...cites([row.requirement], requiredTitle(row), { on: op }), ({ members }) => checkRequired(members(op), row));
  const shapeRequirement = notAnObjectRequirement(op);
  if (shapeRequirement)
    test(...cites([shapeRequirement], notAnObjectTitle(op), { on: op }), ({ members }) =>
      checkBodyNotAnObject(members(op), op, shapeRequirement),
    );
  test(
    ...cites(['GEN-OPTIONAL-MEMBERS'], `${operation(op).noun} is accepted without any one of its optional members`, {
      on: op,
    }),
    ({ members }) => checkOptionalMembers(members(op), op),
  );
}
