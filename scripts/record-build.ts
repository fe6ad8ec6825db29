// Records the build's provenance at install time (npm's `prepare`): the commit and the digest
// of the shipped source files, which GET /build later compares against the files on disk.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_INFO_FILE, hashShippedFiles, type RecordedBuild } from '../src/adapters/fs/source-files.ts';
import { sourceDigest } from '../src/core/source-digest.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function commit(): string {
  if (process.env.OPENRAIL_COMMIT) return process.env.OPENRAIL_COMMIT;
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

const files = hashShippedFiles(root);
const build: RecordedBuild = { commit: commit(), recordedAt: new Date().toISOString(), sourceDigest: sourceDigest(files), files };
writeFileSync(join(root, BUILD_INFO_FILE), `${JSON.stringify(build, null, 2)}\n`);
console.log(`openrail: recorded ${Object.keys(files).length} source files, ${build.sourceDigest}, commit ${build.commit}`);
