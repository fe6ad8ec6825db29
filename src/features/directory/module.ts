import { SqlDirectoryStore } from '../../adapters/sql/directory/sql-directory-store.ts';
import { SqlDirectoryViews } from '../../adapters/sql/directory/sql-directory-views.ts';
import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { defineModule } from '../../app/module.ts';
import { membershipModule } from '../membership/module.ts';
import { DirectoryService } from './directory-service.ts';
import { directoryRoutes } from './routes.ts';

const holderRecords = holderRecordsOf('directory');

/**
 * The holder directory (docs/directory.md), on the holder plane. Without OPENRAIL_DIRECTORY_PEPPER
 * there is no service, and every route answers 503 directory_unconfigured.
 */
export const directoryModule = defineModule({
  name: 'directory',
  groups: ['directory'],
  owns: [SqlDirectoryStore, SqlDirectoryViews, holderRecords],
  holderRecords,
  views: SqlDirectoryViews,
  async build(ctx) {
    const pepper = ctx.config.directoryPepper;
    const directory =
      pepper === undefined
        ? undefined
        : new DirectoryService(pepper, ctx.store(SqlDirectoryStore), await ctx.use(membershipModule), ctx.rates, ctx.clock);
    return { services: { directory }, routes: () => [directoryRoutes(directory)] };
  },
});
