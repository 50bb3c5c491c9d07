import type { KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Certification } from '../../runner/config/run-config.ts';
import { newKeyPair, privateKeyFromPem } from './dsse.ts';

export interface SigningKey {
  key: KeyObject;
  /** Where the key came from, for the console and the statement. */
  origin: 'CERTIFY_SIGNING_KEY' | 'CERTIFY_SIGNING_KEY_FILE' | 'made for this run';
}

/**
 * The key a bundle is signed with: CERTIFY_SIGNING_KEY (PEM text) or CERTIFY_SIGNING_KEY_FILE; neither set, a key
 * made for this run. Throws one line naming the variable when the key given is not a usable Ed25519 private key.
 */
export function signingKeyFrom(certification: Pick<Certification, 'signingKey' | 'signingKeyFile'>): SigningKey {
  const text = certification.signingKey;
  const file = certification.signingKeyFile;
  if (text && file) throw new Error('CERTIFY_SIGNING_KEY and CERTIFY_SIGNING_KEY_FILE are both set: set one');
  if (text) {
    try {
      return { key: privateKeyFromPem(text), origin: 'CERTIFY_SIGNING_KEY' };
    } catch (error) {
      throw new Error(`CERTIFY_SIGNING_KEY=[REDACTED]: ${(error as Error).message}`);
    }
  }
  if (file) {
    if (!existsSync(file)) throw new Error(`CERTIFY_SIGNING_KEY_FILE=${file}: no such file`);
    try {
      return { key: privateKeyFromPem(readFileSync(file, 'utf8')), origin: 'CERTIFY_SIGNING_KEY_FILE' };
    } catch (error) {
      throw new Error(`CERTIFY_SIGNING_KEY_FILE=${file}: ${(error as Error).message}`);
    }
  }
  return { key: privateKeyFromPem(newKeyPair().privatePem), origin: 'made for this run' };
}
