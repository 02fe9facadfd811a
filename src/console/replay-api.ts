/** The Replay view's data: `brook replay` lines judged one by one by the replay session, each with the rule that decided and the window after it. */
import { BatchLineError, parseBatchLine } from '../replay/batch-line.js';
import { replyText, ReplaySession } from '../replay/session.js';
import { ApiError } from './api-input.js';

/** Lines one request may replay: the page steps through them, so more would not be read. */
const MAX_LINES = 10_000;

export function replayLines(body: unknown): unknown {
  const text = (body as { lines?: unknown } | null)?.lines;
  if (typeof text !== 'string') throw new ApiError(400, 'lines must be a string');
  const lines = text.split(/\r?\n/);
  if (lines.length > MAX_LINES) throw new ApiError(400, `at most ${MAX_LINES} lines at once`);
  const session = new ReplaySession();
  const steps = lines.map((line, index) => {
    try {
      const batch = parseBatchLine(line);
      if (batch === undefined) return { line: index + 1, text: line };
      const step = session.step(batch, true);
      return {
        line: index + 1,
        text: line,
        batch,
        reply: replyText(step),
        verdict: step.verdict.kind,
        explanation: step.explanation,
        logEnd: step.logEnd,
        epoch: step.state?.epoch ?? null,
        window: step.state?.window ?? [],
      };
    } catch (err) {
      if (!(err instanceof BatchLineError)) throw err;
      return { line: index + 1, text: line, reply: `ERROR ${err.message}`, error: err.message };
    }
  });
  return { steps };
}
