/**
 * What every rule that refuses gives back: Kafka's error code for the refusal and what is wrong.
 * The rules (a produced batch's checks, the log's limits, the producer decision) return one; a
 * handler puts it on the wire as it is. Exceptions are for I/O, and for bugs.
 */

/** What is wrong with one record of a batch: the Produce answer's record errors. */
export interface RecordError {
  readonly batchIndex: number;
  readonly message: string;
}

export interface Refusal {
  readonly errorCode: number;
  /** What is wrong, in Kafka's words where it has some; null where Kafka answers with the code alone. */
  readonly message: string | null;
  /** The records at fault, for a refusal of some of a batch's records. */
  readonly recordErrors: readonly RecordError[];
}

const NO_RECORD_ERRORS: readonly RecordError[] = [];

export function refusal(errorCode: number, message: string | null, recordErrors: readonly RecordError[] = NO_RECORD_ERRORS): Refusal {
  return { errorCode, message, recordErrors };
}

/** Whether a rule's answer is its refusal rather than what it accepts (which never has an `errorCode`). */
export function isRefusal(answer: object): answer is Refusal {
  return 'errorCode' in answer;
}
