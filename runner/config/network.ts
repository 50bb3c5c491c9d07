import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getProxyForUrl } from 'proxy-from-env';
import type { Network, ProxyRoute } from '../../kit/config/suite-config.ts';
import { urlCredentials } from '../../kit/redact.ts';

type Env = Record<string, string | undefined>;

/** The proxy variables, in curl's order of precedence: lower case before upper case, the scheme's own before ALL_PROXY. */
const PROXY_VARIABLES = {
  'https:': ['https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'],
  'http:': ['http_proxy', 'all_proxy', 'ALL_PROXY'],
} as const;
/** What proxy-from-env may see: curl's variables only (no upper-case HTTP_PROXY, which a CGI server sets from a request's Proxy header). */
const CURL_VARIABLES = [
  'https_proxy',
  'HTTPS_PROXY',
  'http_proxy',
  'all_proxy',
  'ALL_PROXY',
  'no_proxy',
  'NO_PROXY',
] as const;

/**
 * The proxy of one URL as proxy-from-env decides it (NO_PROXY matching included) from these variables alone.
 * proxy-from-env reads process.env, so it is shown, for the length of one synchronous call, an environment holding
 * only curl's variables as the configuration read them (.env included).
 */
/* eslint-disable no-restricted-properties -- proxy-from-env reads process.env and nothing else */
function proxyUrlFor(url: string, env: Env): string {
  const saved = process.env;
  process.env = Object.fromEntries(CURL_VARIABLES.flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
  try {
    return getProxyForUrl(url);
  } finally {
    process.env = saved;
  }
}
/* eslint-enable no-restricted-properties */

/** The certificates of a PEM file; throws with what is wrong (unreadable, no certificate, one that does not parse). */
export function readCertificates(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('the file holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new Error(`certificate ${index + 1} of ${blocks.length} does not parse (${(error as Error).message})`);
    }
  });
  return blocks;
}

export interface NetworkReading {
  network: Network;
  /** Proxy passwords (as written and decoded) and their Basic credentials: secrets for the redactor. */
  secrets: string[];
  problems: string[];
}

/**
 * TLS_CA_FILE and the proxy of every target origin. The proxy applies to the configured target URLs only, as the curl
 * conventions and NO_PROXY decide for each; the embedded sandbox and the suite's other servers are the suite's own and
 * are never reached through one.
 */
export function readNetwork(
  env: Env,
  options: { caFile?: string; targets: string[]; embedded: boolean },
): NetworkReading {
  const problems: string[] = [];
  const secrets = new Set<string>();
  const network: Network = { proxies: {} };
  if (options.caFile) {
    try {
      network.ca = { file: options.caFile, certificates: readCertificates(options.caFile) };
    } catch (error) {
      problems.push(
        `TLS_CA_FILE=${JSON.stringify(options.caFile)} is not valid: expected a readable file of PEM certificates, the CA that issued the target's certificate (${(error as Error).message})`,
      );
    }
  }
  for (const name of CURL_VARIABLES.filter((n) => !/no_proxy/i.test(n)))
    for (const secret of urlCredentials(env[name] ?? '')) secrets.add(secret);
  if (!options.embedded) {
    for (const origin of new Set(options.targets.map((url) => new URL(url).origin))) {
      const url = proxyUrlFor(origin, env);
      if (!url) continue;
      const variable =
        PROXY_VARIABLES[new URL(origin).protocol as 'https:' | 'http:'].find((name) => env[name]) ?? 'HTTPS_PROXY';
      network.proxies[origin] = { url, variable, shown: new URL(url).origin } satisfies ProxyRoute;
    }
  }
  return { network, secrets: [...secrets], problems };
}
