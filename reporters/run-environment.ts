import { readFileSync } from 'node:fs';
import { catalogSha256, interfaceInfo } from '../catalog/catalog.ts';
import type { SuiteConfig } from '../kit/config/suite-config.ts';
import { Redactor } from '../kit/redact.ts';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

export const suiteVersion: string = packageJson.version;

/** A URL as it may be shown: without user or password, and with every configured secret masked. */
function shownUrl(url: string, redactor: Redactor): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return redactor.text(parsed.href);
  } catch {
    return redactor.text(url);
  }
}

/**
 * What a report says about its run: which suite judged which interface with which rules, against which target (the
 * embedded sandbox's flavor and faults as the run started it), under which profile and seed. No secret: URLs lose
 * their credentials and every configured secret is masked.
 */
export function runEnvironment(
  suite: SuiteConfig,
  sandbox?: { flavor: string; faults: readonly string[] },
): Record<string, string> {
  const redactor = new Redactor(suite.secrets);
  const { identity, stepup, orders } = suite.services;
  return {
    'suite version': suiteVersion,
    interface: interfaceInfo.title,
    'interface version': interfaceInfo.version,
    'catalog SHA-256': catalogSha256,
    profile: suite.profile,
    seed: String(suite.seed),
    target: suite.embedded
      ? `embedded sandbox (${sandbox?.flavor ?? 'unknown'} flavor${sandbox?.faults.length ? `, faults ${sandbox.faults.join(',')}` : ''})`
      : shownUrl(identity.baseUrl, redactor),
    'identity base URL': shownUrl(identity.baseUrl, redactor),
    'identity token URL': shownUrl(identity.tokenUrl, redactor),
    'step-up base URL': shownUrl(stepup.baseUrl, redactor),
    'step-up token URL': shownUrl(stepup.tokenUrl, redactor),
    'orders base URL': shownUrl(orders.baseUrl, redactor),
    'orders token URL': shownUrl(orders.tokenUrl, redactor),
    'webhook mode': suite.webhook.mode,
    node: process.version,
  };
}
