/** The secrets of `kubeadm join`: a fresh bootstrap token made here, the CA hash computed here. */
import { createHash, randomInt, X509Certificate } from 'node:crypto';
import { ProvisionError } from './provision-error.ts';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomString(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET.charAt(randomInt(ALPHABET.length));
  return out;
}

/** A bootstrap token in kubeadm's format `[a-z0-9]{6}.[a-z0-9]{16}`. */
export function newBootstrapToken(): string {
  return `${randomString(6)}.${randomString(16)}`;
}

/** `sha256:<hex>` of the CA's SubjectPublicKeyInfo, as `--discovery-token-ca-cert-hash` wants. */
export function caCertHash(caPem: string): string {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(caPem);
  } catch (error) {
    throw new ProvisionError('the control plane returned no valid CA certificate', {
      node: '-',
      step: 'ca-hash',
      cause: error,
    });
  }
  const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

/** What a joining node reads on stdin: never argv, never a file on the harness side. */
export interface JoinSecrets {
  token: string;
  caHash: string;
}

/** The stdin text of the join scripts: `token` and `hash` on two lines. */
export function joinInput(secrets: JoinSecrets): string {
  return `${secrets.token}\n${secrets.caHash}\n`;
}
