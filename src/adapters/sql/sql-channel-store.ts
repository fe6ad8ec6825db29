import type { Selectable } from 'kysely';
import type { ChannelRecord, ChannelState, ChannelStore } from '../../ports/channel-store.ts';
import type { Db } from './connect.ts';
import type { ChannelsTable } from './schema.ts';

const toChannel = (row: Selectable<ChannelsTable>): ChannelRecord => ({
  tenant: row.tenant,
  accountId: row.account_id,
  state: row.state as ChannelState,
  elements: JSON.parse(row.elements),
  requestedBy: row.requested_by as ChannelRecord['requestedBy'],
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

export class SqlChannelStore implements ChannelStore {
  constructor(private readonly db: Db) {}

  async get(tenant: string, accountId: string): Promise<ChannelRecord | undefined> {
    const row = await this.db
      .selectFrom('channels')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row && toChannel(row);
  }
}
