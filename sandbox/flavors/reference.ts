import { strictInput, type CoreBehaviour } from './behaviour.ts';

/** Our reading of the document: 200s, 400/415 refusals, credentials checked first, UUIDs, signed 20-minute tokens. */
export const reference: CoreBehaviour = {
  layout: 'reference',
  createdStatus: 200,
  validationStatus: 400,
  mediaTypeStatus: 415,
  getNeedsContentType: true,
  credentialsBeforeHeaders: true,
  orderCredentialsBeforeHeaders: false,
  ids: 'uuid',
  initialDecision: 'REVIEW',
  omitEventDefaults: false,
  omitResponseDefaults: false,
  sessionResendStatus: 'SENT',
  ...strictInput,
  tokens: { kind: 'signed', lifetimeSeconds: 1200, type: 'Bearer', defaultScope: false, extra: {} },
  webhookHeaders: () => ({}),
};
