// Messages: a partition's records, or every partition's merged by time, from an offset, a time or the end (a live tail),
// each field as text, JSON or hex, each transactional one committed, aborted or open, and the markers ending
// transactions; producing one.
import { useEffect, useState } from 'preact/hooks';
import { api, html, query, useApi, useSearch, enc, ErrorNote, formatTime } from './ui.js';

const TAIL_MS = 1000;
/** The all-partitions view reads at most this many partitions, this many records each. */
const ALL_PARTITIONS = 32;
const ALL_LIMIT = 50;

/**
 * A time typed as ISO 8601 (`2026-12-05T07:26:21Z`, or as the table shows it, `2026-12-05 07:26:21.053 UTC`)
 * in milliseconds; UTC unless it names a zone; NaN if it is not such a time.
 */
export function parseTime(text) {
  const t = text.trim().replace(/ UTC$/, 'Z').replace(' ', 'T');
  if (/^\d{4}-\d\d-\d\d$/.test(t)) return Date.parse(`${t}T00:00:00Z`);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(t)) return NaN;
  return Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(t) ? t : `${t}Z`);
}

/** The records of `partitions`, read from each as `params` say, oldest first (by time across partitions), each with its partition. */
function useRecords(topic, partitions, params, tick) {
  const [state, setState] = useState({ data: undefined, error: undefined });
  const key = `${partitions.join(',')}${params}`;
  useEffect(() => {
    if (params === undefined) return undefined;
    let live = true;
    const reads = partitions.map((p) =>
      api(`/api/topics/${enc(topic)}/partitions/${p}/messages${params}`).then((answer) => ({
        ...answer,
        records: answer.records.map((r) => ({ ...r, partition: p })),
      })),
    );
    Promise.all(reads).then(
      (answers) => {
        const records = answers.flatMap((a) => a.records);
        if (answers.length > 1) records.sort((a, b) => a.timestamp - b.timestamp || a.partition - b.partition || a.offset - b.offset);
        if (live) setState({ data: { answers, records }, error: undefined });
      },
      (error) => live && setState((s) => ({ data: s.data, error })),
    );
    return () => {
      live = false;
    };
  }, [topic, key, tick]);
  return [state.data, state.error];
}

function decode(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/** The bytes as the chosen format shows them; text that is not UTF-8 shows as hex. */
function show(bytes, format) {
  if (format === 'hex') return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return show(bytes, 'hex');
  }
  if (format === 'json') {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }
  return text;
}

function Field({ field, format, label, more }) {
  if (field === null) return html`<span class="null">null</span>`;
  const bytes = decode(field.base64);
  return html`<pre class="value" aria-label=${label}>${show(bytes, format)}</pre>
    ${field.truncated && html`<button type="button" class="link" onClick=${more}>Show all ${field.size} bytes</button>`}`;
}

/** How a record's fields are named for screen readers: by offset, and in the all-partitions view by partition too. */
const named = (r, all) => (all ? `partition ${r.partition} offset ${r.offset}` : `offset ${r.offset}`);

function Record({ r, format, topic, all }) {
  const [whole, setWhole] = useState();
  const [error, setError] = useState();
  const rec = { ...(whole ?? r), partition: r.partition };
  const more = () => api(`/api/topics/${enc(topic)}/partitions/${r.partition}/messages/${r.offset}`).then(setWhole, setError);
  return html`<tr>
    ${all && html`<td class="num">${r.partition}</td>`}
    <td class="num">${rec.offset}</td>
    <td><time datetime=${new Date(Math.max(0, rec.timestamp)).toISOString()}>${formatTime(rec.timestamp)}</time></td>
    <td><${Field} field=${rec.key} format=${format} label=${`key of ${named(rec, all)}`} more=${more} /></td>
    <td><${Field} field=${rec.value} format=${format} label=${`value of ${named(rec, all)}`} more=${more} /><${ErrorNote} error=${error} /></td>
    <td>
      ${
        rec.headers.length === 0
          ? html`<span class="null">none</span>`
          : html`<dl class="headers">
              ${rec.headers.map(
                (h) =>
                  html`<dt>${h.key}</dt>
                    <dd><${Field} field=${h.value} format=${format} label=${`header ${h.key}`} more=${more} /></dd>`,
              )}
            </dl>`
      }
    </td>
    <td class="num">${rec.producerId === '-1' ? '—' : html`<a href=${`/producers${query({ q: topic })}`}>${rec.producerId}</a>`}</td>
    <td class="num">${rec.producerId === '-1' ? '—' : rec.producerEpoch}</td>
    <td class="num">${rec.producerId === '-1' ? '—' : rec.sequence}</td>
    <td class=${rec.transaction === null ? '' : `txn-${rec.transaction}`}>${rec.transaction ?? '—'}</td>
  </tr>`;
}

/** What a marker row says: the control batch that ended a transaction of its producer on this partition. */
const MARKER_MEANING = {
  COMMIT: 'its records before this are committed',
  ABORT: 'its records before this are aborted: read_committed consumers skip them',
};

function MarkerRow({ m, topic, all }) {
  return html`<tr class="marker">
    ${all && html`<td class="num">${m.partition}</td>`}
    <td class="num">${m.offset}</td>
    <td><time datetime=${new Date(Math.max(0, m.timestamp)).toISOString()}>${formatTime(m.timestamp)}</time></td>
    <td colspan="3"><strong>${m.marker} marker</strong>: producer ${m.producerId}'s transaction ends here; ${MARKER_MEANING[m.marker]}</td>
    <td class="num"><a href=${`/producers${query({ q: topic })}`}>${m.producerId}</a></td>
    <td class="num">${m.producerEpoch}</td>
    <td class="num">—</td>
    <td class=${m.marker === 'COMMIT' ? 'txn-committed' : 'txn-aborted'}>${m.marker}</td>
  </tr>`;
}

export function Messages({ topic }) {
  const [params, set] = useSearch();
  const all = params.get('partition') === 'all';
  const partition = all ? undefined : Number(params.get('partition') ?? 0);
  const from = params.get('from') ?? 'offset';
  const offset = params.get('offset') ?? '0';
  const time = params.get('time') ?? '';
  const format = params.get('format') ?? 'text';
  const [tick, setTick] = useState(0);
  const [topicInfo] = useApi(`/api/topics/${enc(topic)}${query({ limit: 1 })}`);
  const count = topicInfo?.partitionCount;
  const at = from === 'time' ? parseTime(time) : undefined;
  const badTime = from === 'time' && Number.isNaN(at);
  const partitions = all ? (count === undefined ? [] : Array.from({ length: Math.min(count, ALL_PARTITIONS) }, (_, i) => i)) : [partition];
  const readParams = badTime ? undefined : query({ from, offset: from === 'offset' ? offset : undefined, time: at, limit: all ? ALL_LIMIT : undefined });
  const [data, error] = useRecords(topic, partitions, readParams, tick);
  useEffect(() => {
    if (from !== 'end') return undefined;
    const timer = setInterval(() => setTick((t) => t + 1), TAIL_MS);
    return () => clearInterval(timer);
  }, [from]);
  const choose = (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    set({ partition: form.get('partition'), from: form.get('from'), offset: form.get('offset'), time: form.get('time') });
  };
  const one = all ? undefined : data?.answers[0];
  return html`<h1>Messages of <a href=${`/topics/${enc(topic)}`} class="name">${topic}</a></h1>
    <form class="inline" onSubmit=${choose} aria-label="Where to read from">
      <label for="partition">Partition</label>
      <select id="partition" name="partition" value=${all ? 'all' : String(partition)}>
        ${(count === undefined ? [partition ?? 0] : Array.from({ length: count }, (_, i) => i)).map((p) => html`<option value=${String(p)}>${p}</option>`)}
        <option value="all">all, by time</option>
      </select>
      <fieldset>
        <legend>From</legend>
        <label><input type="radio" name="from" value="offset" checked=${from === 'offset'} /> offset</label>
        <input name="offset" type="number" min="0" value=${offset} aria-label="Offset" />
        <label><input type="radio" name="from" value="time" checked=${from === 'time'} /> time</label>
        <input name="time" type="text" placeholder="2026-01-31T12:00:00Z" value=${time} aria-label="Time, ISO 8601, UTC unless it names a zone" size="24" />
        <label><input type="radio" name="from" value="end" checked=${from === 'end'} /> the end, live</label>
      </fieldset>
      <button type="submit">Read</button>
    </form>
    <p class="inline">
      <label for="format">Show as</label>
      <select id="format" value=${format} onChange=${(e) => set({ format: e.target.value })}>
        <option value="text">text</option>
        <option value="json">JSON (pretty)</option>
        <option value="hex">hex</option>
      </select>
      ${from === 'end' && html`<span class="live" role="status">Live: following the end of ${all ? 'every partition' : 'the partition'}</span>`}
    </p>
    ${badTime && html`<p class="error" role="alert">The time must be ISO 8601, such as 2026-01-31T12:00:00Z or 2026-01-31 12:00:00 UTC.</p>`}
    <${ErrorNote} error=${error} />
    ${
      data !== undefined &&
      html`<table class="messages">
          <caption>
            ${
              all
                ? `${data.records.length} shown from ${partitions.length} partitions${count > ALL_PARTITIONS ? ` (the first ${ALL_PARTITIONS} of ${count})` : ''}, up to ${ALL_LIMIT} from each, by time`
                : `Offsets ${one.logStartOffset} to ${one.highWatermark - 1} are stored; ${data.records.length} shown from ${one.from}${
                    one.lastStableOffset < one.highWatermark ? `; read_committed consumers read up to ${one.lastStableOffset}` : ''
                  }`
            }
          </caption>
          <thead>
            <tr>
              ${all && html`<th scope="col" class="num">Partition</th>`}
              <th scope="col" class="num">Offset</th>
              <th scope="col">Timestamp</th>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
              <th scope="col">Headers</th>
              <th scope="col" class="num">Producer id</th>
              <th scope="col" class="num">Epoch</th>
              <th scope="col" class="num">Sequence</th>
              <th scope="col">Transaction</th>
            </tr>
          </thead>
          <tbody>
            ${data.records.map((r) =>
              r.marker === undefined
                ? html`<${Record} key=${`${r.partition}-${r.offset}`} r=${r} format=${format} topic=${topic} all=${all} />`
                : html`<${MarkerRow} key=${`${r.partition}-${r.offset}`} m=${r} topic=${topic} all=${all} />`,
            )}
          </tbody>
        </table>
        ${!all && from !== 'end' && one.next < one.highWatermark && html`<button type="button" onClick=${() => set({ from: 'offset', offset: one.next })}>Next messages from ${one.next}</button>`}`
    }
    ${all ? html`<p class="hint">Choose a partition to produce a message to it.</p>` : html`<${Produce} topic=${topic} partition=${partition} produced=${() => setTick((t) => t + 1)} />`}`;
}

function Produce({ topic, partition, produced }) {
  const [error, setError] = useState();
  const [done, setDone] = useState();
  const submit = async (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    const key = String(form.get('key'));
    const headers = String(form.get('headers'))
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => ({ key: l.slice(0, l.includes('=') ? l.indexOf('=') : l.length), value: l.includes('=') ? l.slice(l.indexOf('=') + 1) : null }));
    try {
      const answer = await api(`/api/topics/${enc(topic)}/partitions/${partition}/messages`, {
        method: 'POST',
        body: { key: key === '' ? null : key, value: String(form.get('value')), headers },
      });
      setDone(answer.offset);
      setError(undefined);
      produced();
    } catch (err) {
      setError(err);
    }
  };
  return html`<section aria-labelledby="produce">
    <h2 id="produce">Produce a message to partition ${partition}</h2>
    <form class="stacked" onSubmit=${submit}>
      <label for="produce-key">Key (empty for none)</label>
      <input id="produce-key" name="key" />
      <label for="produce-value">Value</label>
      <textarea id="produce-value" name="value" rows="3"></textarea>
      <label for="produce-headers">Headers, one <code>name=value</code> a line</label>
      <textarea id="produce-headers" name="headers" rows="2"></textarea>
      <button type="submit">Produce</button>
    </form>
    <${ErrorNote} error=${error} />
    ${done !== undefined && html`<p role="status">Stored at offset ${done}.</p>`}
  </section>`;
}
