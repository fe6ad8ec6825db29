import type { IntegrationTokenRecord } from '../../../ports/integration-token-store.ts';
import type { IntegrationViews } from '../../../ports/integration-views.ts';
import type { Db } from '../connect.ts';
import { SqlIntegrationTokenStore } from './sql-integration-token-store.ts';

/** The integration module's published views (ports/integration-views.ts): the token store's own reads, over every tenant. */
export class SqlIntegrationViews implements IntegrationViews {
  constructor(private readonly db: Db) {}

  partnerKeys(partnerId: string, limit: number): Promise<IntegrationTokenRecord[]> {
    return new SqlIntegrationTokenStore(this.db).tokens(null, { partnerId, limit });
  }

  key(id: string): Promise<IntegrationTokenRecord | undefined> {
    return new SqlIntegrationTokenStore(this.db).token(id, null);
  }

  activeKey(tokenHash: string): Promise<IntegrationTokenRecord | undefined> {
    return new SqlIntegrationTokenStore(this.db).findActive(tokenHash);
  }
}
