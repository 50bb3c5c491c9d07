import { memberChecks } from '../../kit/member-rows.ts';
import { cites, test } from '../../fixtures/test.ts';

// Generated from the request schemas of 2.1, 2.3 and 2.5 (kit/member-rows.ts, memberChecks): every JSON type but the
// stated one on every member, every required member missing or null, a body that is no object, every optional member
// left out.
for (const check of memberChecks(['assessment', 'documentVerification', 'caseUpdate']))
  test(...cites(check.ids, check.title, { on: check.op }), ({ members }) => check.run(members(check.op)));
