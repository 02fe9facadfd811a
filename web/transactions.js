// Transactions: each transactional id as the coordinator holds it (Kafka's state names), its producer, partitions, timeout and age, updated live.
import { useCallback, useState } from 'preact/hooks';
import { html, query, useApi, useLiveEvent, useListPlace, enc, SearchForm, ErrorNote, Pager, formatDuration, formatTime } from './ui.js';

const PAGE = 50;

/** What each of the coordinator's states means for the transaction, as a reader would ask. */
const MEANING = {
  Empty: 'ready: no transaction begun yet',
  Ongoing: 'open: records written in it are held back from read_committed consumers',
  PrepareCommit: 'committing: writing COMMIT markers',
  PrepareAbort: 'aborting: writing ABORT markers',
  CompleteCommit: 'committed',
  CompleteAbort: 'aborted',
  Dead: 'expired',
  PrepareEpochFence: 'fencing the producer',
};

function Partitions({ t }) {
  if (t.partitions.length === 0 && t.groups.length === 0) return html`<span class="null">none</span>`;
  return html`<ul class="plain">
    ${t.partitions.map((p) => html`<li><a href=${`/topics/${enc(p.topic)}/messages${query({ partition: p.partition })}`}>${p.topic} [${p.partition}]</a></li>`)}
    ${t.groups.map((g) => html`<li>offsets of group <a href=${`/groups/${enc(g)}`}>${g}</a></li>`)}
  </ul>`;
}

export function Transactions() {
  const place = useListPlace();
  const { q, offset, set } = place;
  const [version, setVersion] = useState(0);
  const [data, error] = useApi(`/api/transactions${query({ q, offset, limit: PAGE })}`, version);
  useLiveEvent(
    'transactions',
    useCallback(() => setVersion((v) => v + 1), []),
  );
  return html`<h1>Transactions</h1>
    <p class="hint">
      Each transactional id the coordinator holds, in its own state names (Kafka's TransactionState): its producer id and epoch, the partitions (and groups'
      offsets) of its open transaction, its timeout, and how long that transaction has been open. Updates live as transactions begin and end.
    </p>
    <${SearchForm} id="transaction-search" label="Transactional id contains" place=${place} />
    <${ErrorNote} error=${error} />
    ${data !== undefined && data.total === 0 && html`<p>No transactional producer has started${q === '' ? '' : ` with an id matching “${q}”`} yet.</p>`}
    ${
      data !== undefined &&
      data.total > 0 &&
      html`<table class="transactions">
          <caption>
            ${data.total} transactional id${data.total === 1 ? '' : 's'}${q === '' ? '' : ` matching “${q}”`}
          </caption>
          <thead>
            <tr>
              <th scope="col">Transactional id</th>
              <th scope="col">State</th>
              <th scope="col" class="num">Producer id</th>
              <th scope="col" class="num">Epoch</th>
              <th scope="col">Partitions</th>
              <th scope="col" class="num">Timeout</th>
              <th scope="col" class="num">Open for</th>
              <th scope="col">Last change</th>
            </tr>
          </thead>
          <tbody>
            ${data.items.map(
              (t) =>
                html`<tr data-transactional-id=${t.transactionalId}>
                  <th scope="row" class="name">${t.transactionalId}</th>
                  <td class=${`state txn-${t.state}`}><strong>${t.state}</strong> <span class="meaning">${MEANING[t.state] ?? ''}</span></td>
                  <td class="num">${t.producerId}</td>
                  <td class="num">${t.epoch}</td>
                  <td><${Partitions} t=${t} /></td>
                  <td class="num">${formatDuration(t.timeoutMs)}</td>
                  <td class="num">${t.ageMs === null ? '—' : formatDuration(t.ageMs)}</td>
                  <td><time datetime=${new Date(t.updateMs).toISOString()}>${formatTime(t.updateMs)}</time></td>
                </tr>`,
            )}
          </tbody>
        </table>
        <${Pager} label="Transactions" total=${data.total} offset=${data.offset} count=${data.items.length} limit=${PAGE} go=${(o) => set({ offset: o })} />`
    }`;
}
