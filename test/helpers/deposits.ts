import { randomBytes } from 'node:crypto';

/** A deposit of contract 0.3.0 (docs/deposits.md): a water bill for `accountId`, with a fresh id. */
export const billBody = (accountId: string, over: Record<string, unknown> = {}) => ({
  contractVersion: '0.3.0',
  depositId: `bill-${randomBytes(6).toString('hex')}`,
  accountId,
  kind: 'bill',
  title: 'Water, October',
  issuedAt: '2026-11-01T08:00:00Z',
  amount: { value: 4215, currency: 'EUR' },
  dueAt: '2026-11-30T23:59:59Z',
  reference: 'WB-2026-10-4471',
  lines: [
    { label: 'Standing charge', amount: { value: 1200, currency: 'EUR' } },
    { label: '12 m³ at 2.51', amount: { value: 3015, currency: 'EUR' } },
  ],
  ...over,
});
