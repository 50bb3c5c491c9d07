import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import {
  connect as tlsConnect,
  createSecureContext,
  rootCertificates,
  type PeerCertificate,
  type SecureContext,
  type TLSSocket,
} from 'node:tls';
import { HttpsProxyAgent } from 'https-proxy-agent';
import type { Network, ProxyRoute } from '../../kit/config/suite-config.ts';

const direct = {
  http: new HttpAgent({ keepAlive: true, maxSockets: 16 }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: 16 }),
};
const tunnels = new Map<string, HttpsProxyAgent<string>>();
const contexts = new WeakMap<object, SecureContext>();

/**
 * Node's roots plus TLS_CA_FILE's certificates (`ca` replaces the roots, so both are given), made into one context per
 * process: given as `ca`, the whole list would be parsed again for every connection and spelled into every pool name.
 */
export function secureContextOf(network: Network | undefined): SecureContext | undefined {
  if (!network?.ca) return undefined;
  let context = contexts.get(network.ca);
  if (!context)
    contexts.set(
      network.ca,
      (context = createSecureContext({ ca: [...rootCertificates, ...network.ca.certificates] })),
    );
  return context;
}

export const proxyOf = (url: URL, network: Network | undefined): ProxyRoute | undefined => network?.proxies[url.origin];

/**
 * The agent and TLS options of one request. Through a proxy every request, http:// included, is tunnelled with CONNECT,
 * so that the target receives the headers exactly as sent (a forwarding proxy may add or rewrite some).
 */
export function connectionOptions(
  url: URL,
  network: Network | undefined,
): { agent: HttpAgent; secureContext?: SecureContext } {
  const secure = url.protocol === 'https:';
  const secureContext = secure ? secureContextOf(network) : undefined;
  const proxy = proxyOf(url, network);
  let agent: HttpAgent = secure ? direct.https : direct.http;
  if (proxy) {
    let tunnel = tunnels.get(proxy.url);
    if (!tunnel)
      tunnels.set(
        proxy.url,
        (tunnel = new HttpsProxyAgent(proxy.url, {
          keepAlive: true,
          maxSockets: 16,
          ...(secureContextOf(network) ? { secureContext: secureContextOf(network) } : {}),
        })),
      );
    agent = tunnel;
  }
  return { agent, ...(secureContext ? { secureContext } : {}) };
}

const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);
const NOT_VALID_NOW = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);
const PROXY_SOCKET: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'the host is not found',
  EAI_AGAIN: 'the host is not found (DNS)',
  ETIMEDOUT: 'no connection (timed out)',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
};

/** A certificate problem in one line with what to do about it, or undefined for any other error. */
export function certificateProblem(error: NodeJS.ErrnoException, network: Network | undefined): string | undefined {
  const code = error.code ?? '';
  if (UNTRUSTED.has(code)) {
    return network?.ca
      ? `the certificate is not trusted: ${error.message}; neither TLS_CA_FILE=${network.ca.file} nor Node's roots issued it`
      : `the certificate is not trusted: ${error.message}; set TLS_CA_FILE to the CA that issued it`;
  }
  if (NOT_VALID_NOW.has(code)) return `the certificate is not valid now: ${error.message}`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the certificate does not name this host: ${error.message}`;
  return undefined;
}

/** A proxy that could not be used, named by its variable: a socket error before the tunnel stood. */
export function proxySocketProblem(proxy: ProxyRoute, error: NodeJS.ErrnoException): string {
  return `${proxy.variable} ${proxy.shown}: ${PROXY_SOCKET[error.code ?? ''] ?? error.message}`;
}

/** A proxy that answered CONNECT with anything but 200 (Node's answer has statusMessage, https-proxy-agent's statusText). */
export function proxyRefusal(
  proxy: ProxyRoute,
  answer: { statusCode?: number | undefined; statusMessage?: string | undefined; statusText?: string | undefined },
  target: string,
): string {
  const reason = answer.statusMessage ?? answer.statusText;
  const status = `${answer.statusCode ?? '?'}${reason ? ` ${reason}` : ''}`;
  if (answer.statusCode === 407) {
    const given = new URL(proxy.url).username !== '';
    return given
      ? `${proxy.variable} ${proxy.shown}: the proxy refused the credentials of the proxy URL, answering CONNECT with ${status}`
      : `${proxy.variable} ${proxy.shown}: the proxy asks for credentials, answering CONNECT with ${status}; put them in the proxy URL, http://user:password@host:port`;
  }
  return `${proxy.variable} ${proxy.shown}: the proxy answered CONNECT ${target} with ${status}`;
}

/** A connection failure that names its cause (the proxy, the certificate), or undefined for the socket's own words. */
export function namedProblem(
  error: NodeJS.ErrnoException,
  url: URL,
  network: Network | undefined,
  tunnelled: boolean,
): string | undefined {
  const certificate = certificateProblem(error, network);
  if (certificate) return certificate;
  const proxy = proxyOf(url, network);
  if (proxy && !tunnelled && error.code && error.code in PROXY_SOCKET) return proxySocketProblem(proxy, error);
  return undefined;
}

const defaultPort = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80));
const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** The issuer of a peer certificate as one line: "CN=Example CA, O=Example". */
export function issuerOf(certificate: PeerCertificate | undefined): string | undefined {
  const issuer = certificate?.issuer as unknown as Record<string, string | string[]> | undefined;
  if (!issuer || Object.keys(issuer).length === 0) return undefined;
  return Object.entries(issuer)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : value}`)
    .join(', ');
}

function tunnelTo(url: URL, proxy: ProxyRoute, network: Network | undefined, timeoutMs: number): Promise<Socket> {
  const via = new URL(proxy.url);
  const target = `${url.hostname}:${defaultPort(url)}`;
  const credentials =
    via.username || via.password
      ? {
          'proxy-authorization': `Basic ${Buffer.from(`${decodeURIComponent(via.username)}:${decodeURIComponent(via.password)}`).toString('base64')}`,
        }
      : {};
  const secureProxy = via.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const connect = (secureProxy ? httpsRequest : httpRequest)({
      host: via.hostname.replace(/^\[|\]$/g, ''),
      port: defaultPort(via),
      method: 'CONNECT',
      path: target,
      headers: { host: target, ...credentials },
      agent: false,
      timeout: timeoutMs,
      ...(secureProxy && secureContextOf(network) ? { secureContext: secureContextOf(network) } : {}),
    });
    connect.once('connect', (answer: IncomingMessage, socket: Socket) => {
      if (answer.statusCode === 200) return resolve(socket);
      socket.destroy();
      reject(new Error(proxyRefusal(proxy, answer, target)));
    });
    connect.once('timeout', () =>
      connect.destroy(Object.assign(new Error(`no connection within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })),
    );
    connect.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(certificateProblem(error, network) ?? proxySocketProblem(proxy, error), { cause: error })),
    );
    connect.end();
  });
}

/** What kind of failure kept a host from being reached: messages word their cause by it. */
export type ReachFailure = 'no-answer' | 'refused' | 'not-found' | 'certificate' | 'proxy' | 'other';

const FAILURE_OF_CODE: Record<string, ReachFailure> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'not-found',
  EAI_AGAIN: 'not-found',
  ETIMEDOUT: 'no-answer',
  EHOSTUNREACH: 'no-answer',
  ENETUNREACH: 'no-answer',
};

export interface Reach {
  /** Why the host cannot be used, in one line; undefined when it answered (TCP, and TLS for https). */
  problem?: string;
  /** Its kind, with a problem. */
  failure?: ReachFailure;
  /** The issuer of the certificate it showed (https only). */
  issuer?: string;
  /** The proxy it was reached through, without credentials. */
  proxy?: string;
}

/**
 * Connects to the URL's host as a request would (through its proxy, with TLS_CA_FILE's certificates) and hangs up: what
 * the preflight asks of every host, and where the certification reads who issued the target's certificate.
 */
export async function reach(target: string, network: Network | undefined, timeoutMs: number): Promise<Reach> {
  const url = new URL(target);
  const secure = url.protocol === 'https:';
  const proxy = proxyOf(url, network);
  const through = proxy ? { proxy: proxy.shown } : {};
  let tunnel: Socket | undefined;
  if (proxy) {
    try {
      tunnel = await tunnelTo(url, proxy, network, timeoutMs);
    } catch (error) {
      const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
      return {
        problem: (error as Error).message,
        failure: cause && certificateProblem(cause, network) ? 'certificate' : 'proxy',
        ...through,
      };
    }
    if (!secure) {
      tunnel.destroy();
      return through;
    }
  }
  const host = bareHost(url);
  const secureContext = secureContextOf(network);
  const options = {
    host,
    port: defaultPort(url),
    timeout: timeoutMs,
    ...(secure ? { servername: isIP(host) ? '' : host, ...(secureContext ? { secureContext } : {}) } : {}),
    ...(tunnel ? { socket: tunnel } : {}),
  };
  return new Promise((resolve) => {
    const socket: Socket | TLSSocket = secure ? tlsConnect(options) : tcpConnect(options);
    const done = (outcome: Reach) => {
      socket.destroy();
      tunnel?.destroy();
      resolve({ ...outcome, ...through });
    };
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      const issuer = secure ? issuerOf((socket as TLSSocket).getPeerCertificate()) : undefined;
      done(issuer ? { issuer } : {});
    });
    socket.once('timeout', () => done({ problem: `no connection within ${timeoutMs} ms`, failure: 'no-answer' }));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const named = namedProblem(error, url, network, tunnel !== undefined);
      const failure: ReachFailure = certificateProblem(error, network)
        ? 'certificate'
        : named
          ? 'proxy'
          : (FAILURE_OF_CODE[error.code ?? ''] ?? 'other');
      done({ problem: named ?? (error.code ? `${error.code} (${error.message})` : error.message), failure });
    });
  });
}
