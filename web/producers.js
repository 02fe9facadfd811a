// Producers: per partition, each idempotent producer's epoch, window, last write and open transaction, and the counts of Produce's decisions, updated live.
import { useCallback, useState } from 'preact/hooks';
import { html, query, useApi, useLiveEvent, useListPlace, enc, SearchForm, ErrorNote, Pager, formatTime } from './ui.js';
import { Window } from './window.js';

const PAGE = 50;

function OpenTransaction({ t }) {
  if (t === null) return html`<span class="null">none</span>`;
  return html`<span class="txn-open">from offset ${t.firstOffset}</span>${
    t.transactionalId === null ? '' : html`, transactional id <a href=${`/transactions${query({ q: t.transactionalId })}`}>${t.transactionalId}</a>`
  }`;
}

export function Producers() {
  const place = useListPlace();
  const { q, offset, set } = place;
  const [version, setVersion] = useState(0);
  const [data, error] = useApi(`/api/producers${query({ q, offset, limit: PAGE })}`, version);
  const changed = useCallback(() => setVersion((v) => v + 1), []);
  useLiveEvent('producers', changed);
  // A transaction's end changes its producers' open transactions: its markers are no Produce.
  useLiveEvent('transactions', changed);
  return html`<h1>Producers</h1>
    <p class="hint">
      Each idempotent producer's epoch and its window: the last five batches it wrote to the partition (first..last sequence @ base offset). A batch matching
      one of them is a duplicate, answered with that offset; any other must follow the newest. Updates live as batches arrive.
    </p>
    <${SearchForm} id="producer-search" label="Topic name contains" place=${place} />
    <${ErrorNote} error=${error} />
    ${data !== undefined && data.total === 0 && html`<p>No idempotent producer has written${q === '' ? '' : ` to a topic matching “${q}”`} yet.</p>`}
    ${data?.items.map(
      (p) =>
        html`<table class="producers">
          <caption>
            <a href=${`/topics/${enc(p.topic)}/messages${query({ partition: p.partition })}`}>${p.topic}</a> partition ${p.partition}
          </caption>
          <thead>
            <tr>
              <th scope="col" class="num">Producer id</th>
              <th scope="col" class="num">Epoch</th>
              <th scope="col">Window</th>
              <th scope="col">Last write</th>
              <th scope="col">Open transaction</th>
              <th scope="col" class="num">Accepted</th>
              <th scope="col" class="num">Duplicate</th>
              <th scope="col" class="num">Out of order</th>
              <th scope="col" class="num">Fenced</th>
            </tr>
          </thead>
          <tbody>
            ${p.producers.map(
              (pr) =>
                html`<tr data-producer=${pr.producerId}>
                  <th scope="row" class="num">${pr.producerId}</th>
                  <td class="num">${pr.epoch}</td>
                  <td><${Window} window=${pr.window} label=${`window of producer ${pr.producerId}`} /></td>
                  <td><time datetime=${new Date(pr.writtenAt).toISOString()}>${formatTime(pr.writtenAt)}</time></td>
                  <td class="open-transaction"><${OpenTransaction} t=${pr.openTransaction} /></td>
                  <td class="num accepted">${pr.counts.accepted}</td>
                  <td class="num duplicate">${pr.counts.duplicate}</td>
                  <td class="num out-of-order">${pr.counts.outOfOrder}</td>
                  <td class="num fenced">${pr.counts.fenced}</td>
                </tr>`,
            )}
          </tbody>
        </table>`,
    )}
    ${
      data !== undefined &&
      html`<${Pager} label="Partitions" total=${data.total} offset=${data.offset} count=${data.items.length} limit=${PAGE} go=${(o) => set({ offset: o })} />`
    }`;
}
