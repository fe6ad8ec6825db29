import { SealedKeyBackend } from '../../src/adapters/crypto/keys/sealed-backend.ts';
import { openPlatformCertifier } from '../../src/adapters/crypto/platform-roots.ts';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlCertificateAuthorityStore } from '../../src/adapters/sql/kernel/sql-certificate-authority-store.ts';
import { type Clock, systemClock } from '../../src/core/clock.ts';
import { IssuerUrls } from '../../src/core/issuer-urls.ts';
import type { KeyBackend } from '../../src/ports/key-backend.ts';
import type { KeyCertifier } from '../../src/ports/key-certifier.ts';
import type { KeyVault } from '../../src/ports/key-vault.ts';

/**
 * The platform certifier on a migrated test database, as the service opens it (root made on first
 * use), its key sealed under `keys` when that is a vault, else made in the backend given.
 */
export function certifierOn(
  db: Db,
  keys: KeyVault | KeyBackend,
  clock: Clock = systemClock,
  publicUrl = new URL('https://rail.example.org'),
): Promise<KeyCertifier> {
  return openPlatformCertifier({
    store: new SqlCertificateAuthorityStore(db),
    backend: 'kind' in keys ? keys : new SealedKeyBackend(keys),
    clock,
    urls: new IssuerUrls(publicUrl),
    publicUrl,
    platformName: 'openrail',
  });
}
