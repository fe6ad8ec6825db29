import { openCertifier } from '../../src/adapters/crypto/platform-ca.ts';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlCertificateAuthorityStore } from '../../src/adapters/sql/kernel/sql-certificate-authority-store.ts';
import { type Clock, systemClock } from '../../src/core/clock.ts';
import { IssuerUrls } from '../../src/core/issuer-urls.ts';
import type { KeyCertifier } from '../../src/ports/key-certifier.ts';
import type { KeyVault } from '../../src/ports/key-vault.ts';

/** The platform certifier on a migrated test database, as the service opens it (root made on first use). */
export function certifierOn(
  db: Db,
  vault: KeyVault,
  clock: Clock = systemClock,
  publicUrl = new URL('https://rail.example.org'),
): Promise<KeyCertifier> {
  return openCertifier({
    store: new SqlCertificateAuthorityStore(db),
    vault,
    clock,
    urls: new IssuerUrls(publicUrl),
    publicUrl,
    platformName: 'openrail',
  });
}
