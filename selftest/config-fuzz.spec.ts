import { expect, test } from '@playwright/test';
import { ConfigError, loadConfig } from '../runner/config/load-config.ts';
import { configSchema } from '../schemas/variables.ts';
import { sandboxTargetEnv } from '../sandbox/target-env.ts';

// Configuration fuzz: every variable given values that are wrong in a typed way, one variable at a time, against an
// otherwise valid configuration. Each must be refused before any test, with one line that names that variable. Through
// the real command: the run of run-reports.spec.ts stopped by its configuration (a route, a webhook, a suite and a
// sandbox variable at once).
const wrongByKind: Record<string, string[]> = {
  httpUrl: ['not a url', 'ftp://files.example.com', 'https://', 'example.com/path'],
  route: ['GET', 'FETCH /assessment', 'POST assessment', 'POST /a b'],
  positiveInteger: ['0', '-5', 'abc', '1.5'],
  count: ['-1', 'many', '2.5'],
  jsonObject: ['[1,2]', 'not json', '"text"', '42'],
  jsonPointer: ['no-slash', '/a/~2'],
  trigger: ['cookie:x=1', 'header:', 'pointer:/x=not json', 'pointer:nope=1'],
  enum: ['sometimes', 'Gate-Keeper', ' '],
  listen: ['localhost', 'host:99999', 'host:port'],
  seed: ['-1', 'abc', '1234567890123'],
  share: ['1.5', '-0.1', 'half'],
  faults: ['No_Such', 'a,,b'],
  proxyUrl: ['socks5://proxy.example:1080', 'proxy.example:3128', 'http://proxy.example:3128/path'],
};

type Property = { $ref?: string; enum?: string[]; pattern?: string };

function kindOf(name: string, property: Property): string | undefined {
  if (property.enum) return 'enum';
  if (property.$ref) return property.$ref.split('/').at(-1);
  return { WEBHOOK_LISTEN: 'listen', SEED: 'seed', SANDBOX_FLAKY_503: 'share', SANDBOX_FAULTS: 'faults' }[name];
}

const cases = Object.entries(configSchema.properties as Record<string, Property>).flatMap(([name, property]) => {
  const kind = kindOf(name, property);
  return (kind && wrongByKind[kind] ? wrongByKind[kind] : []).map((value) => ({ name, value }));
});

const validEnv = () => ({
  ...sandboxTargetEnv({ url: 'http://127.0.0.1:4999', flavor: 'reference', tokenSecret: 'fuzz' }),
  WEBHOOK_LISTEN: '127.0.0.1:4998',
});

test(`configuration fuzz: ${cases.length} wrong values, each refused with one line naming its variable`, () => {
  expect(cases.length, 'at least 100 generated configurations').toBeGreaterThanOrEqual(100);
  expect(
    () => loadConfig(validEnv(), { repoRoot: process.cwd(), embedded: false }),
    'the base configuration is valid',
  ).not.toThrow();
  const accepted: string[] = [];
  const unclear: string[] = [];
  for (const { name, value } of cases) {
    try {
      loadConfig({ ...validEnv(), [name]: value }, { repoRoot: process.cwd(), embedded: false });
      accepted.push(`${name}=${JSON.stringify(value)}`);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      if (error.problems.length !== 1 || !error.problems[0]?.startsWith(name))
        unclear.push(`${name}=${JSON.stringify(value)}: ${error.problems.join(' / ')}`);
    }
  }
  expect(accepted, 'wrong values that were accepted').toEqual([]);
  expect(unclear, 'refusals that are not one line naming the variable').toEqual([]);
});
