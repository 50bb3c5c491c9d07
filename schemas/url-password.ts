/** The password of a URL's userinfo (a proxy URL: http://user:password@proxy:3128). */
const PASSWORD_IN_URL = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s/@]+@/gi;

/**
 * A URL with its password masked; the user name stays, as it says whose credentials they are. Here, below the kit and
 * the sandbox, because both word configuration values with it (schemas/config-problems.ts) and the kit redacts with it.
 */
export function withoutUrlCredentials(text: string): string {
  return text.replace(PASSWORD_IN_URL, '$1[REDACTED]@');
}
