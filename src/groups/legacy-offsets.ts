/**
 * `group-offsets.json`, where brook kept committed offsets before they had a log of their own:
 * read once, when a data directory written then is first opened, to move its offsets over.
 */
import { isJsonObject } from '../files/durable-file.js';
import type { StoredOffset } from './offset-state.js';

export const LEGACY_OFFSETS_FILE = 'group-offsets.json';
const FORMAT = 'brook-group-offsets/1';

interface FileEntry {
  offset: string;
  leaderEpoch: number;
  metadata: string;
}

interface FileContents {
  format: string;
  groups: Record<string, Record<string, Record<string, FileEntry>>>;
}

/** topic → partition → entry, as brook wrote them. */
function isGroupEntry(topics: unknown): boolean {
  return (
    isJsonObject(topics) &&
    Object.values(topics).every((partitions) => isJsonObject(partitions) && Object.entries(partitions).every(([p, e]) => /^\d+$/.test(p) && isFileEntry(e)))
  );
}

function isFileEntry(value: unknown): value is FileEntry {
  return (
    isJsonObject(value) &&
    typeof value.offset === 'string' &&
    /^-?\d+$/.test(value.offset) &&
    Number.isInteger(value.leaderEpoch) &&
    typeof value.metadata === 'string'
  );
}

/**
 * Each group's offsets in the file's text, stamped as committed at `commitTimestamp` (the file
 * kept no times). A text not of the file's form throws, naming `file`.
 */
export function parseLegacyOffsets(file: string, text: string, commitTimestamp: number): Map<string, StoredOffset[]> {
  let contents: FileContents;
  try {
    contents = JSON.parse(text) as FileContents;
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (contents?.format !== FORMAT) throw new Error(`${file} is not a brook group offsets file (format '${String(contents?.format)}')`);
  if (!isJsonObject(contents.groups) || !Object.values(contents.groups).every(isGroupEntry)) {
    throw new Error(`${file} is JSON, but not of the form brook writes there`);
  }
  const groups = new Map<string, StoredOffset[]>();
  // JSON.parse defines own properties, so a "__proto__" key is an entry like any other.
  for (const [groupId, topics] of Object.entries(contents.groups)) {
    const offsets = Object.entries(topics).flatMap(([topic, partitions]) =>
      Object.entries(partitions).map(([p, e]) => ({
        topic,
        partition: Number(p),
        offset: BigInt(e.offset),
        leaderEpoch: e.leaderEpoch,
        metadata: e.metadata,
        commitTimestamp,
      })),
    );
    // A group the file held without offsets is not one: the log keeps none such either.
    if (offsets.length > 0) groups.set(groupId, offsets);
  }
  return groups;
}
