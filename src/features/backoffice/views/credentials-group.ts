import type { GroupBuilder } from '../module.ts';

// PLACEHOLDER while the group is being written: replaced by the group's routes.
export const credentialsGroup: GroupBuilder = async () => ({ group: { name: 'admin-credentials', routes: [] } });
