import type { CoreBehaviour } from './behaviour.ts';
import { reference } from './reference.ts';

/**
 * The reference's choices, but a step-up that carried images is a document verification flow: the verification
 * session event of its session says docVerification true (6.3: "whether the session belongs to a document verification
 * flow"), and a step-up with images alone reports its session too.
 */
export const documentStepUp: CoreBehaviour = {
  ...reference,
  imagesSession: 'document',
};
