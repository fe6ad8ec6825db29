/** The files the web kit serves and inlines (web/assets.ts), as installed (adapters/fs/web-asset-files.ts): read, never written. */
export interface WebAssetFiles {
  /** Where the assets folder is, to name it in an error. */
  readonly folder: string;
  /** The files of the assets folder (src/web/assets/), in the order of their names. */
  assets(): ReadonlyArray<{ name: string; bytes: Buffer }>;
  /** A file of an installed npm package (one of VENDOR_FILES). */
  packageFile(packageName: string, file: string): Buffer;
}
