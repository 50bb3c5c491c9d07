import { operations } from '../../catalog/catalog.ts';
import type { RoutedOperationId } from '../../harness/config/load-config.ts';

/** The operations of 4.2 to 4.7: every operation of the two services. */
export const protectedOperations = operations.filter((op) => op.service !== 'orders').map((op) => op.id as RoutedOperationId);
