import type { Static } from '@sinclair/typebox';
import { divergence, sourceDigest } from '../../core/source-digest.ts';
import type { ShippedBuild } from '../../ports/shipped-build.ts';
import type { Build } from './routes.ts';

export type BuildReport = Static<typeof Build>;

/** GET /build: what was recorded at install time against what is on disk now. */
export function buildReport(shipped: ShippedBuild): BuildReport {
  const recorded = shipped.recorded();
  const observedFiles = shipped.observed();
  const observedSourceDigest = sourceDigest(observedFiles);
  if (!recorded) {
    return {
      commit: 'unknown',
      sourceDigest: 'unrecorded',
      observedSourceDigest,
      matches: false,
      divergence: { missing: 0, changed: 0, extra: Object.keys(observedFiles).length },
      attestation: {
        available: false,
        reason: 'No build record: build-info.json is written by `npm install` (prepare) and is missing.',
      },
    };
  }
  const diff = divergence(recorded.files, observedFiles);
  return {
    commit: recorded.commit,
    sourceDigest: recorded.sourceDigest,
    observedSourceDigest,
    matches: observedSourceDigest === recorded.sourceDigest && diff.missing + diff.changed + diff.extra === 0,
    divergence: diff,
    attestation: {
      available: false,
      reason: 'This deployment publishes no signed build attestation; rebuild the commit and compare sourceDigest.',
    },
  };
}
