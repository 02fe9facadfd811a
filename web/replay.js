// Replay: `brook replay` lines judged by the broker's own rules, stepped through one at a time with the verdict, the rule that decided and the window after each.
import { useState } from 'preact/hooks';
import { api, html, ErrorNote } from './ui.js';
import { Window } from './window.js';

const EXAMPLE = `# A producer writes three batches; the second one's answer is lost, so it is sent again.
producer=31 epoch=0 partition=p-0 seq=0 count=3
producer=31 epoch=0 partition=p-0 seq=3 count=2
producer=31 epoch=0 partition=p-0 seq=3 count=2
# A batch that skips ahead is refused.
producer=31 epoch=0 partition=p-0 seq=9 count=1
producer=31 epoch=0 partition=p-0 seq=5 count=1
# The producer restarts with a new epoch; its old self is fenced.
producer=31 epoch=1 partition=p-0 seq=0 count=1
producer=31 epoch=0 partition=p-0 seq=6 count=1`;

export function Replay() {
  const [text, setText] = useState(EXAMPLE);
  const [steps, setSteps] = useState();
  const [at, setAt] = useState(0);
  const [error, setError] = useState();
  const judged = steps?.filter((s) => s.reply !== undefined) ?? [];
  const run = async (e) => {
    e.preventDefault();
    try {
      const answer = await api('/api/replay', { method: 'POST', body: { lines: text } });
      setSteps(answer.steps);
      setAt(0);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };
  const current = judged[at];
  return html`<h1>Replay</h1>
    <p class="hint">
      Paste <code>brook replay</code> lines (<code>producer=P epoch=E partition=NAME seq=S count=N</code>, or the same as JSON) and step through them: each is
      judged by the rules the broker uses, on a log of its own.
    </p>
    <form class="stacked" onSubmit=${run}>
      <label for="replay-lines">Batch lines</label>
      <textarea id="replay-lines" rows="10" spellcheck="false" value=${text} onInput=${(e) => setText(e.target.value)}></textarea>
      <button type="submit">Replay</button>
    </form>
    <${ErrorNote} error=${error} />
    ${
      steps !== undefined &&
      html`<section aria-labelledby="steps-title" class="replay">
        <h2 id="steps-title">Step ${judged.length === 0 ? 0 : at + 1} of ${judged.length}</h2>
        <div class="inline">
          <button type="button" onClick=${() => setAt(0)} disabled=${at === 0}>First</button>
          <button type="button" onClick=${() => setAt(at - 1)} disabled=${at === 0}>Previous</button>
          <button type="button" onClick=${() => setAt(at + 1)} disabled=${at + 1 >= judged.length}>Next</button>
          <button type="button" onClick=${() => setAt(judged.length - 1)} disabled=${at + 1 >= judged.length}>Last</button>
        </div>
        ${
          current !== undefined &&
          html`<div class="current" aria-live="polite">
            <p>Line ${current.line}: <code>${current.text}</code></p>
            <p class=${`verdict ${current.verdict ?? 'error'}`}>
              <strong>${current.reply}</strong>${current.explanation !== undefined && html` — <span class="explanation">${current.explanation}</span>`}
            </p>
            ${
              current.verdict !== undefined &&
              html`<p>
                  After it: partition <code>${current.batch.partition}</code>'s log end is ${current.logEnd}; producer ${current.batch.producer} has epoch ${current.epoch ?? '—'} and window
                </p>
                <${Window} window=${current.window} label="window after this line" />`
            }
          </div>`
        }
        <ol class="replies">
          ${judged.map(
            (s, i) =>
              html`<li class=${i === at ? 'at' : ''}>
                <button type="button" class="link" aria-current=${i === at ? 'step' : undefined} onClick=${() => setAt(i)}>
                  <span class="lineno">${s.line}</span> <code>${s.text.trim()}</code> → <strong>${s.reply}</strong>
                </button>
              </li>`,
          )}
        </ol>
      </section>`
    }`;
}
