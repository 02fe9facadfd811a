// Messages: a partition's records from an offset, a time or the end (a live tail), each field as text, JSON or hex, each
// transactional one committed, aborted or open, and the markers ending transactions; producing one.
import { useEffect, useState } from 'preact/hooks';
import { api, html, query, useApi, useSearch, enc, ErrorNote, formatTime } from './ui.js';

const TAIL_MS = 1000;

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

function Record({ r, format, topic, partition }) {
  const [whole, setWhole] = useState();
  const [error, setError] = useState();
  const rec = whole ?? r;
  const more = () => api(`/api/topics/${enc(topic)}/partitions/${partition}/messages/${r.offset}`).then(setWhole, setError);
  return html`<tr>
    <td class="num">${rec.offset}</td>
    <td><time datetime=${new Date(Math.max(0, rec.timestamp)).toISOString()}>${formatTime(rec.timestamp)}</time></td>
    <td><${Field} field=${rec.key} format=${format} label=${`key of offset ${rec.offset}`} more=${more} /></td>
    <td><${Field} field=${rec.value} format=${format} label=${`value of offset ${rec.offset}`} more=${more} /><${ErrorNote} error=${error} /></td>
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

function MarkerRow({ m, topic }) {
  return html`<tr class="marker">
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
  const partition = Number(params.get('partition') ?? 0);
  const from = params.get('from') ?? 'offset';
  const offset = params.get('offset') ?? '0';
  const time = params.get('time') ?? '';
  const format = params.get('format') ?? 'text';
  const [tick, setTick] = useState(0);
  const path = `/api/topics/${enc(topic)}/partitions/${partition}/messages${query({ from, offset: from === 'offset' ? offset : undefined, time: from === 'time' ? Date.parse(time) : undefined })}`;
  const [data, error, reload] = useApi(path, tick);
  const [topicInfo] = useApi(`/api/topics/${enc(topic)}${query({ limit: 1 })}`);
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
  return html`<h1>Messages of <a href=${`/topics/${enc(topic)}`} class="name">${topic}</a></h1>
    <form class="inline" onSubmit=${choose} aria-label="Where to read from">
      <label for="partition">Partition</label>
      <input
        id="partition"
        name="partition"
        type="number"
        min="0"
        max=${topicInfo === undefined ? undefined : topicInfo.partitionCount - 1}
        value=${partition}
      />
      <fieldset>
        <legend>From</legend>
        <label><input type="radio" name="from" value="offset" checked=${from === 'offset'} /> offset</label>
        <input name="offset" type="number" min="0" value=${offset} aria-label="Offset" />
        <label><input type="radio" name="from" value="time" checked=${from === 'time'} /> time</label>
        <input name="time" type="datetime-local" step="1" value=${time} aria-label="Time" />
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
      ${from === 'end' && html`<span class="live" role="status">Live: following the end of the partition</span>`}
    </p>
    <${ErrorNote} error=${error} />
    ${
      data !== undefined &&
      html`<table class="messages">
          <caption>
            Offsets ${data.logStartOffset} to ${data.highWatermark - 1} are stored; ${data.records.length} shown from ${data.from}${
              data.lastStableOffset < data.highWatermark ? `; read_committed consumers read up to ${data.lastStableOffset}` : ''
            }
          </caption>
          <thead>
            <tr>
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
                ? html`<${Record} key=${r.offset} r=${r} format=${format} topic=${topic} partition=${partition} />`
                : html`<${MarkerRow} key=${r.offset} m=${r} topic=${topic} />`,
            )}
          </tbody>
        </table>
        ${from !== 'end' && data.next < data.highWatermark && html`<button type="button" onClick=${() => set({ from: 'offset', offset: data.next })}>Next messages from ${data.next}</button>`}`
    }
    <${Produce} topic=${topic} partition=${partition} produced=${reload} />`;
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
