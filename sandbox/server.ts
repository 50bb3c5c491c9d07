import { appendFileSync } from 'node:fs';
import { addExtraClient } from './credentials.ts';
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
  const { issuedTokensFile, extraApiKeys = [], ...rest } = options;
  const flavor = options.flavor ?? 'reference';
  if (!flavors.includes(flavor)) return Promise.reject(new Error(`startSandbox: flavor must be ${flavors.join(', ')}`));
  if (!extraApiKeys.every((key) => addExtraClient(key) !== undefined))
    return Promise.reject(new Error('startSandbox: extraApiKeys holds a key that is not base64("id:secret")'));
  const onTokenIssued = issuedTokensFile
    ? (token: string) => {
        rest.onTokenIssued?.(token);
        appendFileSync(issuedTokensFile, `${token}\n`);
      }
    : rest.onTokenIssued;
  return flavorModule(flavor).start({ ...rest, ...(onTokenIssued ? { onTokenIssued } : {}) });
}
