/**
 * What a probe of the configuration found. A problem is definite (the run cannot work as configured: exit code 2); a
 * warning says what could not be decided and why; ok says what was confirmed.
 */
export type Severity = 'ok' | 'warning' | 'problem';

/** What a finding is about: a service's hosts and token, a route, the webhook path. */
export type Topic = 'reach' | 'route' | 'webhook';

export interface Finding {
  topic: Topic;
  /** What was probed: a service, a route variable, the webhooks. */
  subject: string;
  severity: Severity;
  text: string;
  /** What the probe itself got, in a few words, where its subject is named elsewhere (the webhook path's). */
  got?: string;
}

export const problemsIn = (findings: readonly Finding[]) => findings.filter((f) => f.severity === 'problem');
export const warningsIn = (findings: readonly Finding[]) => findings.filter((f) => f.severity === 'warning');

/** One line: the subject, then what was found. */
export const findingLine = (finding: Finding) => `${finding.subject}: ${finding.text}`;
