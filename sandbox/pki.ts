import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate authority made for one run, and a server certificate it issued. All PEM. */
export interface ThrowawayPki {
  /** The CA's certificate: what a client is told to trust (TLS_CA_FILE). */
  caCert: string;
  /** The server's certificate, for localhost and 127.0.0.1, and its private key. */
  cert: string;
  key: string;
}

/**
 * A throwaway CA and a certificate for localhost and 127.0.0.1 that it signed, made with openssl in a private folder
 * that is removed before returning: the CA's key is gone, nothing else can be issued with it.
 */
export function makeThrowawayPki(caSubject = '/CN=Sandbox Private CA/O=Conformance Sandbox', days = 2): ThrowawayPki {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-pki-'));
  try {
    const at = (name: string) => join(dir, name);
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      at('ca.key'),
      '-out',
      at('ca.pem'),
      '-days',
      String(days),
      '-subj',
      caSubject,
    );
    openssl('req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=localhost');
    writeFileSync(at('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    openssl(
      'x509',
      '-req',
      '-in',
      at('server.csr'),
      '-CA',
      at('ca.pem'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-out',
      at('server.pem'),
      '-days',
      String(days),
      '-extfile',
      at('san.ext'),
    );
    return {
      caCert: readFileSync(at('ca.pem'), 'utf8'),
      cert: readFileSync(at('server.pem'), 'utf8'),
      key: readFileSync(at('server.key'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
