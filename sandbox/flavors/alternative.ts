import { randomUUID } from 'node:crypto';
import { strictInput, type CoreBehaviour } from './behaviour.ts';

/**
 * Every open choice made differently from the reference: other routes, 201s, 422 refusals, extra members, counters
 * for ids, opaque 5-minute tokens typed "bearer", a default scope, headers checked before credentials (and the other
 * way round on the order endpoint), proto3 defaults left out of events,
 * each client's cases out of another client's reach.
 */
export const alternative: CoreBehaviour = {
  layout: 'alternative',
  createdStatus: 201,
  validationStatus: 422,
  mediaTypeStatus: 400,
  getNeedsContentType: false,
  credentialsBeforeHeaders: false,
  orderCredentialsBeforeHeaders: true,
  ids: 'sequential',
  initialDecision: 'ALLOW',
  assessmentExtras: ({ fetchUrl, created, correlationId }) => ({
    _links: { self: { href: fetchUrl } },
    ...(created ? { requestId: correlationId ?? randomUUID() } : {}),
  }),
  omitEventDefaults: true,
  omitResponseDefaults: false,
  sessionResendStatus: 'SENT',
  ...strictInput,
  tokens: {
    kind: 'opaque',
    lifetimeSeconds: 300,
    type: 'bearer',
    defaultScope: true,
    extra: { refresh_expires_in: 0 },
  },
  webhookHeaders: () => ({ 'x-webhook-id': randomUUID() }),
  caseVisibility: 'own-client',
};
