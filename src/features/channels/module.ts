import { defineModule } from '../../app/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { walletModule } from '../wallet/module.ts';
import { ChannelService } from './channel-service.ts';
import { channelRoutes } from './routes.ts';

/**
 * The organisation's side of data channels (docs/wallet.md, "Channels"): ask a holder for a
 * channel, answer a holder's request, revoke, and read what is shared. The holder's side is the
 * wallet module's (channel-request items and sharing).
 */
export const channelsModule = defineModule({
  name: 'channels',
  groups: ['org-channels'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const { sharing, stores } = await ctx.use(walletModule);
    const channels = new ChannelService({ uow: ctx.unitOfWork(), stores, sharing, tenants, clock: ctx.clock, ids: ctx.ids });
    return { services: channels, routes: () => [channelRoutes(channels)] };
  },
});
