import type { CoreBehaviour } from './behaviour.ts';
import { reference } from './reference.ts';

/**
 * The reference's choices, with service ids (authenticationId, the case id of 4.4 and 4.5) looked up case-insensitively,
 * as a store keyed by UUIDs or ULIDs may (both are case-insensitive by their own specifications): a correct target.
 */
export const caseInsensitiveIds: CoreBehaviour = { ...reference, serviceIdCase: 'insensitive' };
