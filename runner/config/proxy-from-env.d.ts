// proxy-from-env 2.x ships no types: its one function, as its README documents it.
declare module 'proxy-from-env' {
  /** The proxy URL for this URL from the *_proxy and NO_PROXY variables of process.env, or '' for none. */
  export function getProxyForUrl(url: string | URL): string;
}
