/** The demo clients of the sandbox. An API key is the opaque value after `Basic `; ours are base64("id:secret"). */
export interface SandboxClient {
  clientId: string;
  clientSecret: string;
  apiKey: string;
  /** Order-endpoint entitlements (part 7, 403 row). */
  entitlements: readonly string[];
}

function client(clientId: string, clientSecret: string, entitlements: readonly string[]): SandboxClient {
  const apiKey = Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64');
  return Object.freeze({ clientId, clientSecret, apiKey, entitlements: Object.freeze([...entitlements]) });
}

export const orderEntitlements: readonly string[] = ['PAYMENTS_FRAUD', 'CHARGEBACK_MANAGEMENT'];

export const mainClient = client('sandbox-client', 'sandbox-secret', ['PAYMENTS_FRAUD']);
export const limitedClient = client('sandbox-limited', 'limited-secret', []);
export const resellerClient = client('sandbox-reseller', 'reseller-secret', ['CHARGEBACK_MANAGEMENT']);
/** Another customer of the service, for the checks of what one client sees of another's cases. */
export const secondClient = client('sandbox-second', 'second-secret', ['PAYMENTS_FRAUD']);

export const resellerChildOrganizationId = 'child-org-001';
export const resellerSharedContext: Readonly<Record<string, string>> = Object.freeze({
  resellerId: resellerClient.clientId,
  childOrganizationId: resellerChildOrganizationId,
});

export const sandboxClients: readonly SandboxClient[] = [mainClient, limitedClient, resellerClient, secondClient];

/**
 * Clients added at start (SandboxOptions.extraApiKeys: SANDBOX_EXTRA_API_KEYS), with the main client's entitlements: the self-tests run
 * the suite with canary credentials and then search every artifact for them.
 */
const extraClients: SandboxClient[] = [];

/** Whether an API key has the form base64("id:secret") that an extra client's key must have. */
export function isExtraApiKey(apiKey: string): boolean {
  const decoded = Buffer.from(apiKey, 'base64').toString('utf8');
  return decoded.indexOf(':') > 0 && Buffer.from(decoded, 'utf8').toString('base64') === apiKey;
}

/** Registers the client of an API key of the form base64("id:secret"); returns it, or undefined if the key is not of that form. */
export function addExtraClient(apiKey: string): SandboxClient | undefined {
  if (!isExtraApiKey(apiKey)) return undefined;
  const decoded = Buffer.from(apiKey, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const added = client(decoded.slice(0, colon), decoded.slice(colon + 1), mainClient.entitlements);
  extraClients.push(added);
  return added;
}

export function clientByApiKey(apiKey: string): SandboxClient | undefined {
  return [...sandboxClients, ...extraClients].find((c) => c.apiKey === apiKey);
}

export function clientById(clientId: string): SandboxClient | undefined {
  return [...sandboxClients, ...extraClients].find((c) => c.clientId === clientId);
}

export function hasOrderEntitlement(clientId: string): boolean {
  const found = clientById(clientId);
  return found !== undefined && found.entitlements.some((e) => orderEntitlements.includes(e));
}
