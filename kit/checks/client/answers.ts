import { mediaTypeOf } from '../../http/media-type.ts';
import { describeRetrySequence, judgeRetrySequence } from './retry-rule.ts';
import {
  allHeld,
  label,
  operationCalls,
  sameRequest,
  type ClientCall,
  type ClientCheck,
  type ClientTraffic,
} from './traffic.ts';

/**
 * How the client deals with what the sandbox answers and sends: the order endpoint's 503s (part 7), retried as one
 * rule judges (retry-rule.ts, whose false-failure rate docs/client-retry.md measures), and the webhook deliveries of
 * part 6, answered with a JSON body.
 */

/** Each order request answered 503, with the gaps (ms) between its attempts: from a 503's answer to the next attempt. */
function retriedOrders(traffic: ClientTraffic): Array<{ first: ClientCall; gaps: number[] }> {
  const attemptsOf: ClientCall[][] = [];
  for (const call of operationCalls(traffic).filter((c) => c.op === 'createOrder')) {
    const group = attemptsOf.find((attempts) => sameRequest(attempts[0] as ClientCall, call));
    if (group) group.push(call);
    else attemptsOf.push([call]);
  }
  return attemptsOf
    .filter((attempts) => (attempts[0] as ClientCall).exchange.status === 503)
    .map((attempts) => {
      const gaps: number[] = [];
      for (let i = 1; i < attempts.length && (attempts[i - 1] as ClientCall).exchange.status === 503; i += 1) {
        const answered = (attempts[i - 1] as ClientCall).exchange;
        gaps.push((attempts[i] as ClientCall).exchange.at - (answered.answeredAt ?? answered.at));
      }
      return { first: attempts[0] as ClientCall, gaps };
    });
}

/** CLI-ORDER-RETRY: a 503 of the order endpoint is retried, the same request sent again, its retries no storm. */
export const expectOrderRetries: ClientCheck = (findings, id, traffic) =>
  allHeld(
    retriedOrders(traffic).map(({ first, gaps }) => {
      const verdict = judgeRetrySequence(gaps);
      return findings.check(id, verdict.held, () => ({
        sent: label(first),
        expected: 'the same request sent again after a short delay with backoff, its retries no storm',
        actual: `${verdict.held ? '' : verdict.reason}: ${describeRetrySequence(gaps)}`,
      }));
    }),
  );

/** CLI-RETRY-DELAYS (INFO): the delays of each retried order request. */
export const observeRetryDelays: ClientCheck = (findings, id, traffic) => {
  for (const { gaps } of retriedOrders(traffic)) if (gaps.length) findings.observe(id, describeRetrySequence(gaps));
  return true;
};

/** Why an answer to a delivery is not a JSON body; undefined when it is. */
function answerProblem(answer: ClientTraffic['deliveries'][number]): string | undefined {
  if (answer.status === undefined) return `no answer (${answer.error ?? 'connection failed'})`;
  try {
    JSON.parse(answer.body);
    return undefined;
  } catch {
    return `answered ${answer.status} with a body that is not JSON (labelled ${answer.contentType ?? '(no Content-Type)'}): ${JSON.stringify(answer.body.slice(0, 80))}`;
  }
}

/** CLI-WEBHOOK-ANSWER: each webhook delivery is answered with a JSON body, whatever its label, status or time. */
export const expectJsonWebhookAnswers: ClientCheck = (findings, id, { deliveries }) =>
  allHeld(
    deliveries.map((answer) => {
      const problem = answerProblem(answer);
      return findings.check(id, problem === undefined, () => ({
        expected: `an answer with a JSON body to the ${answer.kind} delivery (part 6 shows an empty object)`,
        actual: `${answer.kind} delivery: ${problem}`,
      }));
    }),
  );

/** CLI-WEBHOOK-STATUS (INFO): the status, Content-Type label and time of each webhook answer. */
export const observeWebhookAnswers: ClientCheck = (findings, id, { deliveries }) => {
  for (const answer of deliveries) {
    const time = answer.ms < 1000 ? '<1 s' : `${Math.ceil(answer.ms / 1000)} s`;
    findings.observe(
      id,
      answer.status === undefined
        ? 'no answer'
        : `${answer.status} labelled ${mediaTypeOf(answer.contentType) ?? '(no Content-Type)'} in ${time}`,
    );
  }
  return true;
};
