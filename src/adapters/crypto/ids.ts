import { idMinter } from '../../core/ids.ts';
import { randomText } from './random-pool.ts';

/** Identifiers minted from the CSPRNG pool: what the kernel hands every module (Context.ids). */
export const systemIds = idMinter(() => randomText(16));
