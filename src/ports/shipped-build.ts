import type { FileDigests } from '../core/source-digest.ts';

/** What `npm install` recorded of the package it installed (scripts/record-build.ts, build-info.json). */
export interface RecordedBuild {
  commit: string;
  recordedAt: string;
  sourceDigest: string;
  files: FileDigests;
}

/** The package as installed on this machine (adapters/fs/source-files.ts): read, never written. */
export interface ShippedBuild {
  /** The version package.json names, if it names one. */
  version(): string | undefined;
  /** The install's record, if there is a readable one. */
  recorded(): RecordedBuild | undefined;
  /** The digest of every shipped file as it is on disk now. */
  observed(): FileDigests;
}
