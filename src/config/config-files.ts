import { readFileSync } from 'node:fs';
import type { Config } from './config.ts';
import { ConfigError, read } from './env.ts';

/**
 * OPENRAIL_CA_CHAIN_FILE (PEM certificates, the issuing CA's first, the trust anchor last) and
 * OPENRAIL_CA_KEY_FILE (the issuing CA's PKCS#8 private key): both or neither. Their contents are
 * checked against each other when the service starts.
 */
export function certificateAuthority(env: NodeJS.ProcessEnv): Config['certificateAuthority'] {
  const chainFile = read(env, 'OPENRAIL_CA_CHAIN_FILE');
  const keyFile = read(env, 'OPENRAIL_CA_KEY_FILE');
  if (!chainFile && !keyFile) return undefined;
  if (!chainFile) throw new ConfigError('OPENRAIL_CA_CHAIN_FILE', 'is required with OPENRAIL_CA_KEY_FILE');
  if (!keyFile) throw new ConfigError('OPENRAIL_CA_KEY_FILE', 'is required with OPENRAIL_CA_CHAIN_FILE');
  return {
    chainPem: readSmallFile('OPENRAIL_CA_CHAIN_FILE', chainFile, 64),
    privateKeyPem: readSmallFile('OPENRAIL_CA_KEY_FILE', keyFile, 64),
  };
}

/** The text of a file a variable names, of at most `maxKiB`; a file that cannot be read, or is larger, stops the start. */
function readSmallFile(variable: string, file: string, maxKiB: number): string {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(variable, `names a file that cannot be read (${file})`);
  }
  if (content.length > maxKiB * 1024) throw new ConfigError(variable, `names a file over ${maxKiB} KiB (${file})`);
  return content;
}

/** OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: a PEM file of the wallet providers' trust anchors (at most 32). */
export function walletAttestationAnchors(env: NodeJS.ProcessEnv): string[] {
  const file = read(env, 'OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE');
  if (!file) return [];
  const pem = readSmallFile('OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE', file, 256);
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0 || blocks.length > 32) {
    throw new ConfigError('OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE', `must hold 1 to 32 PEM certificates (${file})`);
  }
  // Their DER is read as certificates when the issuance module starts (a fault stops the start).
  return blocks.map((block) => block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, ''));
}
