import { readFileSync } from 'node:fs';

/** One mutant as Stryker reports it (the fields of @stryker-mutator/api's MutantResult this reads). */
export interface Mutant {
  fileName: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

export interface FileScore {
  file: string;
  /** Mutants counted in the score. */
  mutants: number;
  /** Detected: a test failed, or the run passed its time (counted in `killed`). */
  killed: number;
  /** Of `killed`, those that ran past their time: a loop the mutant made, or a machine too busy. */
  timedOut: number;
  survived: number;
  /** Message strings and written-down equivalents, left out of the score. */
  leftOut: number;
  score: number;
  /**
   * The score were every timed-out mutant a survivor: what a busy machine cannot have inflated. A
   * file whose floor is above the bar needs no quiet rerun to stand.
   */
  floor: number;
  survivors: string[];
}

/** Killed by a test, or by running past its time (an infinite loop the mutant made). */
const DETECTED = new Set(['Killed', 'Timeout']);
/** Run and not detected, or not run by any test at all. */
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/** `<file>:<line>:<mutator>:<replacement>`: how a mutant is named in the equivalents and the report. */
export const mutantKey = (file: string, m: Mutant) =>
  `${file}:${m.location.start.line}:${m.mutatorName}:${(m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 80)}`;

/**
 * The text a mutant replaced, from the file as it is. The results `runMutationTest()` answers
 * count lines and columns from 1 (the mutation-testing report schema), as the SQL pass does.
 */
function original(source: string[], m: Mutant): string {
  const { start, end } = m.location;
  const lines = source.slice(start.line - 1, end.line);
  if (lines.length === 0) return '';
  if (lines.length === 1) return (lines[0] ?? '').slice(start.column - 1, end.column - 1);
  return [(lines[0] ?? '').slice(start.column - 1), ...lines.slice(1, -1), (lines.at(-1) ?? '').slice(0, end.column - 1)].join(
    '\n',
  );
}

/**
 * A message string: a string literal (or template) of words, which a person reads (an error's
 * message, a log line's text). Only these are left out of the score: a string without a space
 * (an algorithm, a typ, a claim name, a column) is a value the program decides with.
 */
export function isMessageString(source: string[], m: Mutant): boolean {
  return m.mutatorName === 'StringLiteral' && /\s/.test(original(source, m).slice(1, -1));
}

/** The score of each file: detected / (detected + undetected), message strings and equivalents left out. */
export function scoreFiles(root: string, mutants: Mutant[], equivalent: Record<string, string>): FileScore[] {
  const byFile = new Map<string, Mutant[]>();
  for (const m of mutants) {
    const file = m.fileName.startsWith(root) ? m.fileName.slice(root.length + 1) : m.fileName;
    byFile.set(file, [...(byFile.get(file) ?? []), m]);
  }
  return [...byFile.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, list]) => {
      const source = readFileSync(`${root}/${file}`, 'utf8').split('\n');
      let killed = 0;
      let timedOut = 0;
      let survived = 0;
      let leftOut = 0;
      const survivors: string[] = [];
      for (const m of list) {
        if (!DETECTED.has(m.status) && !UNDETECTED.has(m.status)) continue;
        if (isMessageString(source, m) || mutantKey(file, m) in equivalent) {
          leftOut++;
          continue;
        }
        if (DETECTED.has(m.status)) {
          killed++;
          if (m.status === 'Timeout') timedOut++;
        } else {
          survived++;
          survivors.push(`${mutantKey(file, m)}  (${m.status}; was: ${original(source, m).replace(/\s+/g, ' ').slice(0, 60)})`);
        }
      }
      const counted = killed + survived;
      return {
        file,
        mutants: counted,
        killed,
        timedOut,
        survived,
        leftOut,
        score: counted === 0 ? 1 : killed / counted,
        floor: counted === 0 ? 1 : (killed - timedOut) / counted,
        survivors,
      };
    });
}
