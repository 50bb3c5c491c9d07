import type { Exchange } from './http/exchange.ts';

/** What a check found about a requirement: what was sent, what the requirement expects, and what came. */
export interface Evidence {
  sent?: string;
  expected: string;
  actual: string;
  details?: string[];
}

/**
 * Where a check records what it found: a test's verdict (kit/verdict.ts) for the checks of a target, the findings of
 * a client's recorded traffic (scripts/client/judge.ts) for the checks of a client. A check is a small function of a
 * Findings, the requirement it judges and its input; it records one finding with its evidence, pass or fail.
 */
export interface Findings {
  /** Records whether the requirement held; the evidence is built only when it did not. Returns whether it held. */
  check(id: string, ok: boolean, evidence: () => Evidence): boolean;
  /** Records what an INFO requirement observed. */
  observe(id: string, observation: string): void;
  /** "METHOD url (note)" of an exchange and a command that replays it, secrets removed, for evidence. */
  sent(exchange: Exchange): string;
  /** A JSON value with secrets removed, for evidence. */
  redacted(value: unknown): string;
}

/** The evidence as the lines of a failure message: Sent, Expected, Actual and any details. */
export function evidenceLines(evidence: Evidence): string[] {
  const lines = evidence.sent ? [`  Sent:     ${evidence.sent}`] : [];
  lines.push(`  Expected: ${evidence.expected}`, `  Actual:   ${evidence.actual}`);
  for (const detail of evidence.details ?? []) lines.push(`  ${detail}`);
  return lines;
}
