import type { GroupBuilder } from '../module.ts';

// PLACEHOLDER while the group is being written: replaced by the group's routes.
export const orgsGroup: GroupBuilder = async () => ({ group: { name: 'admin-orgs', routes: [] } });
