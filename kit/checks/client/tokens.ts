import { operation, tokenEndpoint } from '../../../catalog/catalog.ts';
import { mediaTypeOf } from '../../http/media-type.ts';
import { allHeld, label, operationCalls, type ClientCall, type ClientCheck, type ClientTarget } from './traffic.ts';

/** The client's token requests (4.1) and the tokens its calls carry (5.4, 5.5). */

const FORM = 'application/x-www-form-urlencoded';

function tokenRequestProblems(call: ClientCall, target: ClientTarget): string[] {
  const form = new URLSearchParams(call.exchange.body.toString('utf8'));
  const auth = call.headers.get('authorization') ?? '';
  const basic = /^Basic /i.test(auth);
  const problems = [
    call.exchange.method !== 'POST' && `method ${call.exchange.method}`,
    mediaTypeOf(call.headers.get('content-type')) !== FORM &&
      `Content-Type ${call.headers.get('content-type') ?? '(none)'}`,
    !basic && 'no Basic Authorization',
    basic && !target.apiKeys.includes(auth.slice(6).trim()) && 'Basic credentials that are not an issued API key',
    form.get('grant_type') !== tokenEndpoint.grantType && `grant_type ${JSON.stringify(form.get('grant_type'))}`,
    form.get('scope') !== tokenEndpoint.scope && `scope ${JSON.stringify(form.get('scope'))}`,
  ];
  return problems.filter((problem): problem is string => typeof problem === 'string');
}

/** CLI-TOKEN-REQUEST: every token request is a POST of the form of 4.1 with an issued API key as Basic credentials. */
export const expectTokenRequestForm: ClientCheck = (findings, id, { calls, target }) =>
  allHeld(
    calls
      .filter((c) => c.kind === 'token')
      .map((call) => {
        const problems = tokenRequestProblems(call, target);
        return findings.check(id, problems.length === 0, () => ({
          sent: label(call),
          expected: `a POST of a form (${FORM}) with Authorization: Basic <an issued API key>, grant_type=${tokenEndpoint.grantType} and scope=${tokenEndpoint.scope}`,
          actual: problems.join('; '),
        }));
      }),
  );

/** CLI-TOKEN-REUSE (INFO): how many token requests each token endpoint had with each credentials, over how long. */
export const observeTokenReuse: ClientCheck = (findings, id, { calls, target }) => {
  const byKey = new Map<string, ClientCall[]>();
  for (const call of calls.filter((c) => c.kind === 'token')) {
    const key = `${call.service} ${call.headers.get('authorization') ?? ''}`;
    byKey.set(key, [...(byKey.get(key) ?? []), call]);
  }
  [...byKey.values()].forEach((group, index) => {
    const span = ((group.at(-1)?.exchange.at ?? 0) - (group[0]?.exchange.at ?? 0)) / 1000;
    const requests = `${group.length} token ${group.length === 1 ? 'request' : 'requests'}`;
    findings.observe(
      id,
      `${group[0]?.service} token endpoint, credentials ${index + 1}: ${requests} over ${span.toFixed(1)} s (tokens live ${target.tokenLifetimeSeconds} s)`,
    );
  });
  return true;
};

const bearerOf = (call: ClientCall) => /^Bearer\s+(\S+)$/i.exec(call.headers.get('authorization') ?? '')?.[1];

const tokenService = (call: ClientCall): 'identity' | 'stepup' =>
  operation(call.op as NonNullable<ClientCall['op']>).service === 'stepup' ? 'stepup' : 'identity';

/** The token endpoint that issued the token, if one did and it has not expired. */
const issuerOf = (token: string, target: ClientTarget) =>
  (['identity', 'stepup'] as const).find((service) => target.checkToken(token, service).ok);

/** CLI-BEARER: every call of 4.2 to 4.8 carries Bearer <token>, a token a token endpoint issued that has not expired. */
export const expectIssuedBearer: ClientCheck = (findings, id, traffic) => {
  const { target } = traffic;
  return allHeld(
    operationCalls(traffic).map((call) => {
      const auth = call.headers.get('authorization') ?? '';
      const bearer = bearerOf(call);
      const issued = bearer !== undefined && issuerOf(bearer, target) !== undefined;
      return findings.check(id, issued, () => ({
        sent: label(call),
        expected: 'Authorization: Bearer <a token one of the token endpoints issued, not expired>',
        actual:
          bearer === undefined
            ? `Authorization ${auth ? JSON.stringify(auth.split(' ')[0]) : '(none)'}, not Bearer <token>`
            : `a token no token endpoint issued, or expired (${target.checkToken(bearer, tokenService(call)).reason ?? 'unknown'})`,
      }));
    }),
  );
};

const serviceWords = { identity: 'identity', stepup: 'step-up', orders: 'order endpoint' } as const;

/** CLI-TOKEN-PER-SERVICE (INFO): which token endpoint's token each service's calls carry. */
export const observeTokenPerService: ClientCheck = (findings, id, traffic) => {
  for (const call of operationCalls(traffic)) {
    const bearer = bearerOf(call);
    const issuedBy = bearer === undefined ? undefined : issuerOf(bearer, traffic.target);
    if (!issuedBy) continue;
    const called = serviceWords[operation(call.op as NonNullable<ClientCall['op']>).service];
    findings.observe(id, `${called} calls with a token of the ${serviceWords[issuedBy]} token endpoint`);
  }
  return true;
};
