// A producer's window of remembered batches, drawn as five slots: what the idempotence rules compare a new batch with.
import { html } from './ui.js';

export const WINDOW_SIZE = 5;

export function Window({ window, label }) {
  const slots = Array.from({ length: WINDOW_SIZE }, (_, i) => window[i]);
  return html`<ol class="window" aria-label=${label}>
    ${slots.map((e) =>
      e === undefined
        ? html`<li class="empty" aria-label="empty slot">·</li>`
        : html`<li><span class="seq">${e.firstSeq}..${e.lastSeq}</span><span class="base">@${e.baseOffset}</span></li>`,
    )}
  </ol>`;
}
