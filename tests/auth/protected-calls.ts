import { operations } from '../../catalog/catalog.ts';
import type { RoutedOperationId } from '../../kit/config/suite-config.ts';

/**
 * The operations of 4.2 to 4.7: every operation of the two services, the step-up first. An accepted step-up causes a
 * verification session event (6.3) on the target's clock, and the end of the run waits for it (runner/config/projects.ts):
 * its tests go first in the project.
 */
export const protectedOperations = operations
  .filter((op) => op.service !== 'orders')
  .map((op) => op.id as RoutedOperationId)
  .sort((a, b) => Number(b === 'stepUp') - Number(a === 'stepUp'));
