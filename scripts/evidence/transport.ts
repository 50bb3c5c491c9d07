import type { SuiteConfig } from '../../kit/config/suite-config.ts';
import { reach } from '../../runner/http/network.ts';

/** How the run reached one origin of the target: through which proxy (host only), and who issued its certificate. */
export interface OriginTransport {
  origin: string;
  /** The proxy's scheme://host:port, never its credentials; null when reached directly. */
  proxy: string | null;
  /** The issuer of the certificate the target showed on the certification's first TLS connection to it; null over http. */
  certificateIssuer: string | null;
  /** Why the origin could not be reached, when it could not (the run's preflight then says the same). */
  problem?: string;
}

/**
 * The transport facts of a certification bundle, read on the first connection to each origin of the target, made
 * before the run as every request of the run is made (TLS_CA_FILE's certificates, the proxy the configuration chose).
 * The run is not stopped here when one cannot be reached: its preflight judges that, in the same words.
 */
export async function transportOf(
  config: Pick<SuiteConfig, 'services' | 'http' | 'embedded'>,
): Promise<OriginTransport[]> {
  const origins = [
    ...new Set(
      Object.values(config.services)
        .flatMap((service) => [service.baseUrl, service.tokenUrl])
        .map((url) => new URL(url).origin),
    ),
  ];
  // The embedded sandbox listens only once the run starts it: plain http on loopback, never through a proxy.
  if (config.embedded) return origins.map((origin) => ({ origin, proxy: null, certificateIssuer: null }));
  return Promise.all(
    origins.map(async (origin) => {
      const seen = await reach(origin, config.http.network, config.http.timeoutMs);
      return {
        origin,
        proxy: seen.proxy ?? null,
        certificateIssuer: seen.issuer ?? null,
        ...(seen.problem ? { problem: seen.problem } : {}),
      };
    }),
  );
}
