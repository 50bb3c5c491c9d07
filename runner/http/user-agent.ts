import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { HeaderList } from '../../kit/http/exchange.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

/**
 * What every request of the suite says it is (User-Agent, RFC 9110 §10.1.5): the suite and its version, and the key of
 * the test that sent it, so that a server's logs can be matched to the report (the key is in every exchange's headers).
 */
export function userAgent(testKey?: string): string {
  return testKey ? `${pkg.name}/${pkg.version} (test ${testKey})` : `${pkg.name}/${pkg.version}`;
}

/** The test key a User-Agent of the suite carries. */
export function testKeyIn(value: string | undefined): string | undefined {
  return /\(test ([0-9a-f]{12})\)/.exec(value ?? '')?.[1];
}

/** A test's key, the same in every project and run: its file (relative to tests/, with /) and its titles (describes, then its own). */
export function testKey(file: string, titles: readonly string[]): string {
  return createHash('sha256')
    .update([file, ...titles].join('\n'))
    .digest('hex')
    .slice(0, 12);
}

/** The headers with a User-Agent added, unless they carry one already. */
export function withUserAgent(headers: HeaderList, value: string): HeaderList {
  return headers.some(([name]) => name.toLowerCase() === 'user-agent') ? headers : [...headers, ['user-agent', value]];
}
