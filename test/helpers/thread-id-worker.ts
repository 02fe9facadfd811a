/** A worker for WorkerCalls' tests: answers each call with the id of the thread that answers it. */
import { threadId } from 'node:worker_threads';
import { answerCalls } from '../../src/threads/worker-calls.js';

answerCalls(() => threadId);
