import { Redactor } from '../../kit/redact.ts';

const MASK = '[REDACTED]';
/** Names of variables, options and headers whose value is a credential. */
const SECRET_NAME = '[\\w.-]*(?:key|token|secret|passw(?:or)?d|credentials?|auth(?:orization)?)(?:[_.-][\\w.-]*)?\\b';
const VALUE = `'[^']*'|"[^"]*"|[^\\s'"]+`;
/** `NAME=value`, `--name=value` and `--name value`, for a name that says it holds a credential. */
const SECRET_ASSIGNMENT = new RegExp(`(^|[\\s;&|('"])((?:--?)?${SECRET_NAME})(=|\\s+(?=[^-\\s]))(${VALUE})`, 'gi');
/** A credential header written into the command (`-H 'Authorization: ...'`, `x-api-key: ...`). */
const SECRET_HEADER = new RegExp(
  `\\b(authorization|proxy-authorization|cookie|${SECRET_NAME})(\\s*:\\s*)([^'"\\n]+)`,
  'gi',
);
/** The password of a URL's user information. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:)([^\s@/]+)(@)/gi;

/** A shell variable reference ($API_KEY, ${TOKEN}) names a secret without holding it. */
const isReference = (value: string): boolean => /^["']?\$/.test(value);

/**
 * A command line with its credentials masked: every secret the redactor knows, credentials after Basic or Bearer,
 * values of variables and options named like credentials (API_KEY=..., --token ...), credential headers and URL
 * passwords. For the statement of a client certification, which names the client by its command.
 */
export function redactedCommand(command: string, redactor: Redactor = new Redactor()): string {
  return redactor
    .text(command)
    .replace(SECRET_ASSIGNMENT, (match: string, before: string, name: string, joiner: string, value: string) =>
      isReference(value) ? match : `${before}${name}${joiner}${MASK}`,
    )
    .replace(SECRET_HEADER, (match: string, name: string, colon: string, value: string) =>
      isReference(value.trim()) || value.includes(MASK) ? match : `${name}${colon}${MASK}`,
    )
    .replace(URL_PASSWORD, (_match: string, before: string, _password: string, at: string) => `${before}${MASK}${at}`);
}

/** How a client certification names the client: the command it ran (redacted), or that it was started by hand, and its version when given. */
export interface ClientIdentity {
  command: string;
  version?: string;
}

export function clientIdentity(
  command: string | undefined,
  version: string | undefined,
  redactor: Redactor,
): ClientIdentity {
  return {
    command: command === undefined ? '(started by hand against --listen)' : redactedCommand(command, redactor),
    ...(version ? { version: redactor.text(version) } : {}),
  };
}

/** A client certification's statement must name the client: a command, and a version only as text. */
export function clientClaimProblems(predicate: Record<string, unknown>): string[] {
  if (predicate['role'] !== 'client') return [];
  const client = predicate['client'] as Partial<ClientIdentity> | undefined;
  const named =
    typeof client === 'object' &&
    client !== null &&
    typeof client.command === 'string' &&
    (client.version === undefined || typeof client.version === 'string');
  return named ? [] : ['the statement of a client certification does not name the client (client.command expected)'];
}
