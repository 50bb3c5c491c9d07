import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';

/**
 * Dead Simple Signing Envelope (DSSE v1), the envelope in-toto attestations and SLSA provenance use, signed with
 * Ed25519 from Node's own crypto. The signature covers the pre-authentication encoding of the payload type and
 * the payload bytes, so neither can be swapped without breaking it.
 */
export interface DsseEnvelope {
  payloadType: string;
  /** The payload, base64. */
  payload: string;
  signatures: Array<{ keyid: string; sig: string }>;
}

/** PAE(type, body) = "DSSEv1" SP len(type) SP type SP len(body) SP body, lengths in bytes. */
function preAuthEncoding(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

/** A key's id: the SHA-256 of its public key (SubjectPublicKeyInfo, DER), hex. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** An Ed25519 key from PEM text, made by `create`; throws a one-line Error naming what is wrong. */
function ed25519Key(pem: string, create: (pem: string) => KeyObject, kind: 'private' | 'public'): KeyObject {
  let key: KeyObject;
  try {
    key = create(pem);
  } catch (error) {
    throw new Error(`not a PEM ${kind} key (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`);
  return key;
}

export const privateKeyFromPem = (pem: string): KeyObject => ed25519Key(pem, createPrivateKey, 'private');
/** An Ed25519 public key from PEM text (SPKI, or a private key whose public half is taken). */
export const publicKeyFromPem = (pem: string): KeyObject => ed25519Key(pem, createPublicKey, 'public');

export function newKeyPair(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export function signEnvelope(payloadType: string, payload: Buffer, key: KeyObject): DsseEnvelope {
  const sig = sign(null, preAuthEncoding(payloadType, payload), key);
  return {
    payloadType,
    payload: payload.toString('base64'),
    signatures: [{ keyid: keyIdOf(key), sig: sig.toString('base64') }],
  };
}

export type EnvelopeCheck = { ok: true; payload: Buffer } | { ok: false; problem: string };

/** Whether one of the envelope's signatures is the given key's over its payload; the payload when it is. */
export function verifyEnvelope(envelope: DsseEnvelope, key: KeyObject): EnvelopeCheck {
  if (
    typeof envelope.payload !== 'string' ||
    typeof envelope.payloadType !== 'string' ||
    !Array.isArray(envelope.signatures)
  ) {
    return { ok: false, problem: 'not a DSSE envelope (payloadType, payload and signatures expected)' };
  }
  const payload = Buffer.from(envelope.payload, 'base64');
  const encoded = preAuthEncoding(envelope.payloadType, payload);
  const keyid = keyIdOf(key);
  if (
    envelope.signatures.some(
      (s) => typeof s.sig === 'string' && verify(null, encoded, key, Buffer.from(s.sig, 'base64')),
    )
  )
    return { ok: true, payload };
  const signers = envelope.signatures.map((s) => s.keyid).join(', ') || 'nobody';
  return {
    ok: false,
    problem: envelope.signatures.some((s) => s.keyid === keyid)
      ? `the signature by key ${keyid} does not match the statement: the statement was changed after signing`
      : `signed by key ${signers}, not by the key given (${keyid})`,
  };
}
