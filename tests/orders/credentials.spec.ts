import type { Api } from '../../kit/api.ts';
import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import type { Redactor } from '../../kit/redact.ts';
import { expectErrorEnvelope } from '../../kit/checks/order-envelope.ts';
import { newOrder } from '../../kit/builders/order-requests.ts';
import { tamperedNearTheEnd } from '../../kit/builders/token-variants.ts';
import { citesWithEnvelope, envelopeRules, test } from '../../fixtures/orders.ts';

interface CredentialDefect {
  name: string;
  /** The call options that carry the defect, or a reason it cannot be exercised against this target. */
  options: (ctx: {
    api: Api;
    config: SuiteConfig;
    redactor: Redactor;
  }) => Promise<{ omit?: string[]; set?: Record<string, string>; note: string } | { notConfigured: string }>;
}

const credentialDefects: CredentialDefect[] = [
  { name: 'missing', options: async () => ({ omit: ['authorization'], note: 'no credentials' }) },
  {
    name: 'malformed',
    options: async () => ({ set: { authorization: 'Bearer not a token' }, note: 'a malformed bearer token' }),
  },
  {
    name: 'tampered',
    options: async ({ api, redactor }) => {
      const token = tamperedNearTheEnd(await api.tokenFor('createOrder'));
      redactor.add(token);
      return { set: { authorization: `Bearer ${token}` }, note: 'an issued token with one character changed' };
    },
  },
  {
    name: 'expired',
    options: async ({ config }) => {
      const expired = config.services.orders.expiredToken;
      return expired
        ? { set: { authorization: `Bearer ${expired}` }, note: 'an expired token' }
        : { notConfigured: 'no expired token is configured (ORDERS_EXPIRED_TOKEN)' };
    },
  },
];

for (const defect of credentialDefects) {
  test(
    ...citesWithEnvelope(['ORD-401'], `credentials that are ${defect.name} are answered 401 unauthorized`),
    async ({ api, verdict, config, data, redactor }) => {
      const options = await defect.options({ api, config, redactor });
      if ('notConfigured' in options) {
        return verdict.notConfigured(options.notConfigured);
      }
      const exchange = await api.call('createOrder', { body: newOrder(config, data), ...options });
      expectErrorEnvelope(verdict, envelopeRules, exchange, { id: 'ORD-401', row: '401' });
    },
  );
}

test(
  ...citesWithEnvelope(['ORD-403'], 'a client without the order entitlements is answered 403 forbidden'),
  async ({ api, verdict, config, data }) => {
    const apiKey = config.orders.noEntitlementApiKey;
    if (!apiKey) {
      const reason = 'no client without the entitlements is configured (ORDERS_NO_ENTITLEMENT_API_KEY)';
      return verdict.notConfigured(reason);
    }
    const clientId = config.orders.noEntitlementClientId;
    const exchange = await api.call('createOrder', {
      body: newOrder(config, data),
      apiKey,
      ...(clientId ? { set: { 'x-client-id': clientId } } : {}),
      note: 'as a client without PAYMENTS_FRAUD or CHARGEBACK_MANAGEMENT',
    });
    expectErrorEnvelope(verdict, envelopeRules, exchange, { id: 'ORD-403', row: '403' });
  },
);
