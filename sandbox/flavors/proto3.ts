import type { CoreBehaviour } from './behaviour.ts';
import { reference } from './reference.ts';

/**
 * The reference's choices, written as a proto3 JSON gateway with default settings writes them: every member holding
 * its default ("", 0, false, an empty list or object, an enum at its default) left out of answers and events. Its
 * sessions report no resend, so resendStatus is at its default (UNKNOWN_RESEND_STATUS) and left out too.
 */
export const proto3: CoreBehaviour = {
  ...reference,
  omitEventDefaults: true,
  omitResponseDefaults: true,
  sessionResendStatus: 'UNKNOWN_RESEND_STATUS',
};
