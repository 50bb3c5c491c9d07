import { requirement, requirements, type Area } from '../../catalog/catalog.ts';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';

/**
 * The optional settings: the variables without which some checks are reported as not configured, each with the
 * requirements those checks cite. The one place the suite says which variable unlocks which requirement (npm run
 * doctor and docs/doctor.md read it); the requirements' levels are read from the catalog where they are shown.
 */
export interface OptionalSetting {
  /** The variables to set, the first one naming the setting. */
  variables: readonly string[];
  /** What the checks it unlocks exercise, in a few words. */
  exercises: string;
  /** The requirements cited by the checks that stay not configured without it. */
  requirements: readonly string[];
  /** How far the configuration sets it: every variable it needs, some, or none. */
  state: (config: SuiteConfig) => 'set' | 'partly set' | 'unset';
}

const ofArea = (area: Area): string[] => requirements.filter((r) => r.area === area).map((r) => r.id);
const setWhen = (present: readonly boolean[]): 'set' | 'partly set' | 'unset' =>
  present.every(Boolean) ? 'set' : present.some(Boolean) ? 'partly set' : 'unset';

export const optionalSettings: readonly OptionalSetting[] = [
  {
    variables: ['WEBHOOK_PUBLIC_URL'],
    exercises:
      'the part-6 events: the flows run and their deliveries are judged (the receiver listens on WEBHOOK_LISTEN)',
    requirements: ofArea('webhooks'),
    state: (config) =>
      config.webhook.mode === 'active' ? 'set' : config.webhook.mode === 'passive' ? 'partly set' : 'unset',
  },
  {
    variables: ['RESELLER_API_KEY', 'RESELLER_SOURCE_CLIENT_ID', 'RESELLER_SHARED_CONTEXT'],
    exercises: 'the reseller project: sharedContext and x-source-client-id for a child organisation',
    // The optional x-source-client-id of 4.4 names a child organisation, which only a reseller has.
    requirements: [...ofArea('reseller'), 'DOCR-SOURCE-CLIENT-ID'],
    state: (config) => (config.reseller ? 'set' : 'unset'),
  },
  {
    variables: ['ORDERS_NO_ENTITLEMENT_API_KEY'],
    exercises: 'the 403 row of POST /v2/orders, as a client without the entitlements',
    requirements: ['ORD-403'],
    state: (config) => setWhen([config.orders.noEntitlementApiKey !== undefined]),
  },
  {
    variables: ['ORDER_TRIGGER_404'],
    exercises: 'the 404 row of POST /v2/orders, induced',
    requirements: ['ORD-404'],
    state: (config) => setWhen([config.orders.triggers['404'] !== undefined]),
  },
  {
    variables: ['ORDER_TRIGGER_500'],
    exercises: 'the 500 row of POST /v2/orders, induced',
    requirements: ['ORD-500'],
    state: (config) => setWhen([config.orders.triggers['500'] !== undefined]),
  },
  {
    variables: ['ORDER_TRIGGER_503'],
    exercises: 'the 503 row of POST /v2/orders, induced, and its Retry-After observed',
    requirements: ['ORD-503', 'ORD-RETRY-OBSERVED'],
    state: (config) => setWhen([config.orders.triggers['503'] !== undefined]),
  },
  {
    variables: ['SECOND_CLIENT_API_KEY', 'SECOND_CLIENT_ID'],
    exercises: "a second client's view of the first client's inquiries (another CLIENT_ID with a key of its own)",
    requirements: ['OBS-SECOND-CLIENT'],
    state: (config) => (config.secondClient ? 'set' : 'unset'),
  },
  {
    variables: ['IDENTITY_EXPIRED_TOKEN', 'STEPUP_EXPIRED_TOKEN', 'ORDERS_EXPIRED_TOKEN'],
    exercises:
      "an expired token refused, each on its service's operations (and on POST /v2/orders, one of the 401 row's four credentials)",
    requirements: ['BEARER-EXPIRED'],
    state: (config) =>
      setWhen(
        [
          config.services.identity.expiredToken,
          config.services.stepup.expiredToken,
          config.services.orders.expiredToken,
        ].map((token) => token !== undefined),
      ),
  },
];

/** The variables that unlock each requirement, by the table above: a row not configured names them all (the reports). */
export function unlocksByRequirement(): Record<string, string[]> {
  const table: Record<string, string[]> = {};
  for (const setting of optionalSettings)
    for (const id of setting.requirements) table[id] = [...new Set([...(table[id] ?? []), ...setting.variables])];
  return table;
}

// An ID the catalog no longer has fails at load, not in a table nobody reads.
for (const setting of optionalSettings) for (const id of setting.requirements) requirement(id);
