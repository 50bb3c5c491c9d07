// Kept for kit/checks/nothing-changed.ts and kit/reads-after-writes.ts until the one nothing-changed check replaces them.
export { tagNames } from '../case/case-state.ts';
