/**
 * oid4vc-ts refuses http:// URLs process-wide unless told otherwise; the wallet tells it so only
 * when the holder allowed http, and `walletFetch` (net.ts) still limits http to loopback hosts.
 * Apart from net.ts because importing the library costs a third of a second: only the subcommands
 * that speak OID4VCI or OID4VP (through collect.ts and present.ts) load this module.
 */
import { getGlobalConfig, setGlobalConfig } from '@openid4vc/openid4vci';
import type { WalletNetOptions } from './net.ts';

export function allowLibraryHttp(options: WalletNetOptions): void {
  if (options.allowHttp) setGlobalConfig({ ...getGlobalConfig(), allowInsecureUrls: true });
}
