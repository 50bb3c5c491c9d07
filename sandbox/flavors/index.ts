import type { LayoutName } from '../layout.ts';
import type { TokenKind } from '../tokens.ts';
import type { Flavor, RunningSandbox, SandboxOptions } from '../types.ts';
import { alternative } from './alternative.ts';
import { caseInsensitiveIds } from './case-insensitive-ids.ts';
import { documentStepUp } from './document-step-up.ts';
import { lenient } from './lenient.ts';
import { normalising } from './normalising.ts';
import { proto3 } from './proto3.ts';
import { reference } from './reference.ts';

/**
 * One flavor of the sandbox: the paths it serves, the tokens it issues, and how it starts. The servers are loaded when
 * a flavor starts, not before: the suite's runner and workers read these facts (sandbox/target-env.ts) and would
 * otherwise load every server module of the sandbox.
 */
export interface FlavorModule {
  layout: LayoutName;
  tokenKind: TokenKind;
  /** Whether its webhooks reach the receiver it is given (the detached flavor posts to a sink of its own). */
  deliversToReceiver: boolean;
  start(options: SandboxOptions): Promise<RunningSandbox>;
}

const core = () => import('../core.ts');

const modules: Readonly<Record<Flavor, FlavorModule>> = {
  reference: {
    layout: 'reference',
    tokenKind: reference.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await core()).startCore(options, reference, 'reference'),
  },
  alternative: {
    layout: 'alternative',
    tokenKind: alternative.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await core()).startCore(options, alternative, 'alternative'),
  },
  gateway: {
    layout: 'gateway',
    tokenKind: reference.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await import('../gateway/front.ts')).startGatewaySandbox(options),
  },
  'rate-limited': {
    layout: 'reference',
    tokenKind: reference.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await import('./rate-limited.ts')).startRateLimitedSandbox(options),
  },
  detached: {
    layout: 'reference',
    tokenKind: reference.tokens.kind,
    deliversToReceiver: false,
    start: async (options) => (await import('./detached.ts')).startDetachedSandbox(options),
  },
  lenient: {
    layout: 'reference',
    tokenKind: lenient.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await core()).startCore(options, lenient, 'lenient'),
  },
  proto3: {
    layout: 'reference',
    tokenKind: proto3.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await core()).startCore(options, proto3, 'proto3'),
  },
  'document-step-up': {
    layout: 'reference',
    tokenKind: documentStepUp.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await core()).startCore(options, documentStepUp, 'document-step-up'),
  },
  far: {
    layout: 'reference',
    tokenKind: reference.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await import('./far.ts')).startFarSandbox(options),
  },
  normalising: {
    layout: 'reference',
    tokenKind: normalising.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await core()).startCore(options, normalising, 'normalising'),
  },
  'case-insensitive-ids': {
    layout: 'reference',
    tokenKind: caseInsensitiveIds.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await core()).startCore(options, caseInsensitiveIds, 'case-insensitive-ids'),
  },
  trailing: {
    layout: 'reference',
    tokenKind: reference.tokens.kind,
    deliversToReceiver: true,
    start: async (options) => (await import('./trailing.ts')).startTrailingSandbox(options),
  },
};

export const flavors = Object.keys(modules) as readonly Flavor[];

export function flavorModule(name: Flavor): FlavorModule {
  const found = modules[name];
  if (!found) throw new Error(`Unknown sandbox flavor "${name}": expected ${flavors.join(', ')}`);
  return found;
}
