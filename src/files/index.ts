/**
 * The one place that reads trajectory files, whatever their format: JSONL (reader.ts), JSON
 * (jsonFile.ts) and ART's Parquet step files (parquetGroups.ts over artParquet.ts and parquet.ts). Each format
 * validates a whole file into a ValidationSummary and reads it back as GroupRecords: a group's
 * exact JSON text and where it sits (lines for text files, rows and group for Parquet).
 * Validation, upload and the viewer sit on top of it. No `vscode` import.
 */
import { readJsonGroups, validateJsonFile } from './jsonFile';
import { readParquet, validateParquet } from './parquetGroups';
import { readJsonl, validateJsonl, type GroupRecord, type ReadOptions, type TrajectoryFileFormat, type ValidateOptions, type ValidationSummary } from './reader';

export { ProblemError, type Problem } from './problems';
export {
  checkGroup,
  groupProblems,
  trajectoryCount,
  type GroupRecord,
  type ReadOptions,
  type TrajectoryFileFormat,
  type ValidateOptions,
  type ValidationSummary,
} from './reader';
export {
  ART_PARQUET_VERSION,
  ART_VERSION_KEY,
  artVersion,
  groupText,
  openArtParquet,
  readArtGroups,
  rowOfTrajectory,
  type ArtGroup,
  type ArtGroupFault,
  type ArtParquetInfo,
  type ReadParquetOptions,
} from './artParquet';
export { InvalidUtf8, ParquetError, ParquetFile, type ParquetInfo } from './parquet';
export { artGroupProblems, V1_LOSSY } from './parquetGroups';

/**
 * `.jsonl` (and `.ndjson`) files hold a group per line, `.parquet` files are ART's step files;
 * anything else is read as one JSON document.
 */
export function formatOf(path: string): TrajectoryFileFormat {
  if (/\.parquet$/i.test(path)) return 'parquet';
  return /\.(jsonl|ndjson)$/i.test(path) ? 'jsonl' : 'json';
}

/** Validates a whole file and reports every problem (up to maxProblems). Throws only on I/O errors or abort. */
export async function validateTrajectoryFile(path: string, opts: ValidateOptions = {}): Promise<ValidationSummary> {
  switch (formatOf(path)) {
    case 'jsonl':
      return validateJsonl(path, opts);
    case 'parquet':
      return validateParquet(path, opts);
    default:
      return validateJsonFile(path, opts);
  }
}

/**
 * The groups of a file, in order, each as its exact JSON text. Meant for a file that validated:
 * the first problem met is thrown as a ProblemError naming its place.
 */
export async function* readTrajectoryGroups(path: string, opts: ReadOptions = {}): AsyncGenerator<GroupRecord> {
  switch (formatOf(path)) {
    case 'jsonl':
      yield* readJsonl(path, opts);
      return;
    case 'parquet':
      yield* readParquet(path, opts);
      return;
    default:
      yield* readJsonGroups(path, opts);
  }
}
