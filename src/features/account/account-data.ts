import type { Clock } from '../../core/clock.ts';
import type { CoinEntry, MemberRecord } from '../../ports/membership-store.ts';
import type { TenantRecord } from '../../ports/tenant-store.ts';
import type { HolderData } from './holder-data.ts';

/** What the portal reads of the membership module (its service). */
export interface MembershipReads {
  membershipsOf(accountId: string): Promise<MemberRecord[]>;
  coinLedger(tenant: string, accountId: string, limit: number): Promise<CoinEntry[]>;
}

/** The ledger the overview shows, and the one the export carries (whole, up to this bound). */
export const OVERVIEW_LEDGER_LIMIT = 500;
export const EXPORT_LEDGER_LIMIT = 100_000;
/** The rows of each section of `records` the export carries, at most. */
export const EXPORT_RECORDS_LIMIT = 10_000;

export interface Membership {
  member: MemberRecord;
  tenantName: string;
  ledger: CoinEntry[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** What the account portal reads of an account (docs/account.md): its memberships and coin ledgers, and its records for the export. */
export class AccountData {
  constructor(
    private readonly members: MembershipReads,
    private readonly tenants: { find(slug: string): Promise<TenantRecord | undefined> },
    private readonly clock: Clock,
    /** The account's records by the holder-data registry's export sections, each read by its owner. */
    private readonly records: Pick<HolderData, 'records'>,
  ) {}

  async memberships(accountId: string, ledgerLimit: number): Promise<Membership[]> {
    return Promise.all(
      (await this.members.membershipsOf(accountId)).map(async (member) => ({
        member,
        tenantName: (await this.tenants.find(member.tenant))?.name ?? member.tenant,
        ledger: await this.members.coinLedger(member.tenant, accountId, ledgerLimit),
      })),
    );
  }

  /** The export, `openrail-account-export/2` (docs/account.md, "Export"). */
  async export(accountId: string) {
    const memberships = (await this.memberships(accountId, EXPORT_LEDGER_LIMIT)).map(({ member: m, tenantName, ledger }) => ({
      tenant: m.tenant,
      tenantName,
      displayName: m.displayName,
      tier: m.tier,
      status: m.status,
      balance: m.balance,
      joinedAt: iso(m.joinedAt),
      updatedAt: iso(m.updatedAt),
      coinLedger: ledger.map((e) => ({
        id: e.id,
        delta: e.delta,
        reason: e.reason,
        balanceAfter: e.balanceAfter,
        createdAt: iso(e.createdAt),
      })),
    }));
    const records = await this.records.records(accountId, EXPORT_RECORDS_LIMIT);
    return { format: 'openrail-account-export/2', exportedAt: iso(this.clock.now()), accountId, memberships, records };
  }
}
