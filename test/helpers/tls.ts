import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** True when `openssl` can make test certificates here (Node cannot create X.509 itself). */
export const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A self-signed P-256 certificate for `subjectAltName` (e.g. 'DNS:fetch.test,IP:127.0.0.1'), valid one day. */
export function selfSignedCertificate(commonName: string, subjectAltName: string): { key: Buffer; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'openrail-tls-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
        .concat(['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1'])
        .concat(['-subj', `/CN=${commonName}`, '-addext', `subjectAltName=${subjectAltName}`]),
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
