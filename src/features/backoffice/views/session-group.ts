import type { GroupBuilder } from '../module.ts';

// PLACEHOLDER while the group is being written: replaced by the group's routes.
export const sessionGroup: GroupBuilder = async () => ({ group: { name: 'admin-session', routes: [] } });
