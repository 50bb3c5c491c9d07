import { flavorModule, flavors } from './flavors/index.ts';
import type { RunningSandbox, SandboxOptions } from './types.ts';

export type {
  DeliveryAnswer,
  Flavor,
  RateLimits,
  ReceivedRequest,
  RecordedExchange,
  RunningSandbox,
  SandboxOptions,
} from './types.ts';
export { flavors };

/** Starts the sandbox of the chosen flavor (default reference): the flavor is chosen here, once. */
export function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const flavor = options.flavor ?? 'reference';
  if (!flavors.includes(flavor)) return Promise.reject(new Error(`startSandbox: flavor must be ${flavors.join(', ')}`));
  return flavorModule(flavor).start(options);
}
