import { startCore } from '../core.ts';
import { startGatewaySandbox } from '../gateway/front.ts';
import type { LayoutName } from '../layout.ts';
import type { TokenKind } from '../tokens.ts';
import type { Flavor, RunningSandbox, SandboxOptions } from '../types.ts';
import { alternative } from './alternative.ts';
import { startDetachedSandbox } from './detached.ts';
import { startRateLimitedSandbox } from './rate-limited.ts';
import { reference } from './reference.ts';

/** One flavor of the sandbox: the paths it serves, the tokens it issues, and how it starts. */
export interface FlavorModule {
  layout: LayoutName;
  tokenKind: TokenKind;
  /** Whether its webhooks reach the receiver it is given (the detached flavor posts to a sink of its own). */
  deliversToReceiver: boolean;
  start(options: SandboxOptions): Promise<RunningSandbox>;
}

const modules: Readonly<Record<Flavor, FlavorModule>> = {
  reference: { layout: 'reference', tokenKind: reference.tokens.kind, deliversToReceiver: true, start: (options) => startCore(options, reference, 'reference') },
  alternative: { layout: 'alternative', tokenKind: alternative.tokens.kind, deliversToReceiver: true, start: (options) => startCore(options, alternative, 'alternative') },
  gateway: { layout: 'gateway', tokenKind: reference.tokens.kind, deliversToReceiver: true, start: startGatewaySandbox },
  'rate-limited': { layout: 'reference', tokenKind: reference.tokens.kind, deliversToReceiver: true, start: startRateLimitedSandbox },
  detached: { layout: 'reference', tokenKind: reference.tokens.kind, deliversToReceiver: false, start: startDetachedSandbox },
};

export const flavors = Object.keys(modules) as readonly Flavor[];

export function flavorModule(name: Flavor): FlavorModule {
  const found = modules[name];
  if (!found) throw new Error(`Unknown sandbox flavor "${name}": expected ${flavors.join(', ')}`);
  return found;
}
