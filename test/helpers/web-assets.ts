import { webAssetFilesAt } from '../../src/adapters/fs/web-asset-files.ts';
import { installWebAssets, loadWebAssets, type WebAssets } from '../../src/web/assets.ts';

/**
 * The web assets as the service installs them when it starts (app/start.ts), for a test that
 * renders pages without starting one.
 */
export function installedWebAssets(): WebAssets {
  const assets = loadWebAssets(webAssetFilesAt());
  installWebAssets(assets);
  return assets;
}
