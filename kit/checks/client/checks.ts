import { expectJsonWebhookAnswers, expectOrderRetries, observeRetryDelays, observeWebhookAnswers } from './answers.ts';
import { expectChildContext, expectOneChildNamed, expectScenarioPerformed, observeSiblingIds } from './reseller.ts';
import {
  expectBodySchemas,
  expectClientIdHeader,
  expectCorrelationIdHeader,
  expectJsonBodies,
  expectKnownCases,
  expectUniqueCorrelationIds,
  observeTraffic,
} from './requests.ts';
import { expectIssuedBearer, expectTokenRequestForm, observeTokenPerService, observeTokenReuse } from './tokens.ts';
import type { ClientCheck } from './traffic.ts';

/** Every client check by its name, for the one registry (kit/checks/registry.ts). */
export const clientChecksByName = {
  expectTokenRequestForm,
  observeTokenReuse,
  observeTokenPerService,
  expectIssuedBearer,
  expectClientIdHeader,
  expectCorrelationIdHeader,
  expectUniqueCorrelationIds,
  expectJsonBodies,
  expectBodySchemas,
  expectKnownCases,
  expectChildContext,
  expectOneChildNamed,
  observeSiblingIds,
  expectOrderRetries,
  observeRetryDelays,
  expectJsonWebhookAnswers,
  observeWebhookAnswers,
  expectScenarioPerformed,
  observeTraffic,
} as const satisfies Readonly<Record<string, ClientCheck>>;

/**
 * The one check of each client requirement (catalog/client-requirements.json), over the client's whole traffic: the
 * judge passes each check the requirement it judges here.
 */
export const clientChecks: Readonly<Record<string, ClientCheck>> = {
  'CLI-TOKEN-REQUEST': expectTokenRequestForm,
  'CLI-TOKEN-REUSE': observeTokenReuse,
  'CLI-TOKEN-PER-SERVICE': observeTokenPerService,
  'CLI-BEARER': expectIssuedBearer,
  'CLI-CLIENT-ID': expectClientIdHeader,
  'CLI-CORRELATION-ID': expectCorrelationIdHeader,
  'CLI-CORRELATION-UNIQUE': expectUniqueCorrelationIds,
  'CLI-JSON-BODY': expectJsonBodies,
  'CLI-BODY-SCHEMA': expectBodySchemas,
  'CLI-KNOWN-CASE': expectKnownCases,
  'CLI-RESELLER-CONTEXT': expectChildContext,
  'CLI-CHILD-ISOLATION': expectOneChildNamed,
  'CLI-SIBLING-ID': observeSiblingIds,
  'CLI-ORDER-RETRY': expectOrderRetries,
  'CLI-RETRY-DELAYS': observeRetryDelays,
  'CLI-WEBHOOK-ANSWER': expectJsonWebhookAnswers,
  'CLI-WEBHOOK-STATUS': observeWebhookAnswers,
  'CLI-SCENARIO': expectScenarioPerformed,
  'CLI-TRAFFIC': observeTraffic,
};
